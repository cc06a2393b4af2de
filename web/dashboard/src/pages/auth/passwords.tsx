/** The password pages: forgot (the e-mailed link), reset (from that link) and change (signed in). */
import { useState } from 'preact/hooks';
import { ApiError, publicCall, type Answer } from '../../api';
import { currentSession, setSession } from '../../session';
import { ErrorNote, Field, Link, Notice, PageHeader, inputValue, useSubmit } from '../../ui';
import { AuthCard } from './card';

const PASSWORD_RULE = '12 to 128 characters, with a lowercase letter, an uppercase letter and a number.';

export function ForgotPassword() {
  const [email, setEmail] = useState('');
  const [sent, setSent] = useState<string | null>(null);
  const { busy, error, submit } = useSubmit(async () => {
    const answer = await publicCall<Answer<'postAuthMerchantForgotPassword'>>(
      'POST',
      '/auth/merchant/forgot-password',
      { email },
    );
    setSent(answer.message);
  });
  return (
    <AuthCard title="Reset your password">
      {sent ? (
        <Notice tone="success">{sent} Check your inbox for the link.</Notice>
      ) : (
        <form onSubmit={submit}>
          <Field label="E-mail" hint="We send a link to choose a new password.">
            {(a) => (
              <input
                {...a}
                type="email"
                autoComplete="email"
                required
                value={email}
                onInput={(e) => setEmail(inputValue(e))}
              />
            )}
          </Field>
          <ErrorNote error={error} />
          <button type="submit" disabled={busy}>
            Send the link
          </button>
        </form>
      )}
      <p class="aside">
        <Link to="/sign-in">Back to sign in</Link>
      </p>
    </AuthCard>
  );
}

/** The new password and its repetition: reset, change and a new person's invitation ask for it the same way. */
export function NewPasswordFields(props: {
  password: string;
  confirm: string;
  set: (password: string, confirm: string) => void;
}) {
  return (
    <>
      <Field label="New password" hint={PASSWORD_RULE}>
        {(a) => (
          <input
            {...a}
            type="password"
            autoComplete="new-password"
            required
            minLength={12}
            maxLength={128}
            value={props.password}
            onInput={(e) => props.set(inputValue(e), props.confirm)}
          />
        )}
      </Field>
      <Field label="Repeat the new password">
        {(a) => (
          <input
            {...a}
            type="password"
            autoComplete="new-password"
            required
            value={props.confirm}
            onInput={(e) => props.set(props.password, inputValue(e))}
          />
        )}
      </Field>
    </>
  );
}

/** Checked before the request: the API sees the password once, so the repetition is compared here. */
export const mismatch = () => new ApiError(400, 'PASSWORD_MISMATCH', 'The two passwords differ.');

export function ResetPassword(props: { token: string | null }) {
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [done, setDone] = useState(false);
  const { busy, error, submit } = useSubmit(async () => {
    if (password !== confirm) throw mismatch();
    await publicCall('POST', '/auth/reset-password', { token: props.token, new_password: password });
    setDone(true);
  });
  if (!props.token) {
    return (
      <AuthCard title="Choose a new password">
        <ErrorNote error={new Error('This link has no token. Open the link from the e-mail again.')} />
      </AuthCard>
    );
  }
  return (
    <AuthCard title="Choose a new password">
      {done ? (
        <Notice tone="success">
          Your password is set. <Link to="/sign-in">Sign in</Link>
        </Notice>
      ) : (
        <form onSubmit={submit}>
          <NewPasswordFields password={password} confirm={confirm} set={(p, c) => (setPassword(p), setConfirm(c))} />
          <ErrorNote error={error} />
          <button type="submit" disabled={busy}>
            Set the password
          </button>
        </form>
      )}
    </AuthCard>
  );
}

export function ChangePassword() {
  const session = currentSession();
  const [current, setCurrent] = useState('');
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const { busy, error, submit } = useSubmit(async () => {
    if (password !== confirm) throw mismatch();
    await publicCall('POST', '/auth/merchant/change-password', {
      email: session?.user.email,
      current_password: current,
      new_password: password,
    });
    // The change revokes every session of the account, this one included.
    setSession(null, 'Your password changed. Sign in with the new password.');
  });
  return (
    <>
      <PageHeader title="Change your password" />
      <form onSubmit={submit} class="narrow">
        <Field label="Current password">
          {(a) => (
            <input
              {...a}
              type="password"
              autoComplete="current-password"
              required
              value={current}
              onInput={(e) => setCurrent(inputValue(e))}
            />
          )}
        </Field>
        <NewPasswordFields password={password} confirm={confirm} set={(p, c) => (setPassword(p), setConfirm(c))} />
        <ErrorNote error={error} />
        <button type="submit" disabled={busy}>
          Change the password
        </button>
        <p class="hint">Every session of your account ends; you sign in again with the new password.</p>
      </form>
    </>
  );
}
