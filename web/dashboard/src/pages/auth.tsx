/** Signing in and the password pages: merchant login, invitation, forgot/reset, change password. */
import type { ComponentChildren } from 'preact';
import { useRef, useState } from 'preact/hooks';
import { ApiError, call, publicCall, scheduleRefresh, withTokens, type Answer } from '../api';
import { navigate } from '../router';
import { currentSession, setSession } from '../session';
import { ErrorNote, Field, Link, Notice, PageHeader, inputValue, useLoad, useSubmit } from '../ui';

const PASSWORD_RULE = '12 to 128 characters, with a lowercase letter, an uppercase letter and a number.';

type MerchantLogin = Answer<'postAuthMerchantLogin'>;

function AuthCard(props: { title: string; children: ComponentChildren }) {
  return (
    <main class="auth" id="main">
      <div class="auth-card">
        <p class="brand" aria-hidden="true">
          Switchyard
        </p>
        <PageHeader title={props.title} />
        {props.children}
      </div>
    </main>
  );
}

type AccountChoice = Extract<MerchantLogin, { choose_account: unknown }>['choose_account'];

/** The accounts an e-mail and password open in several organizations: the person picks the one to enter. */
function ChooseAccount(props: { accounts: AccountChoice; busy: boolean; choose: (accountId: string) => void }) {
  return (
    <section aria-labelledby="choose-account">
      <h2 id="choose-account">Choose an account</h2>
      <p>This e-mail has an account in several organizations. Which one do you want to enter?</p>
      <ul class="plain choices">
        {props.accounts.map((account) => (
          <li key={account.account_id}>
            <button
              type="button"
              class="secondary"
              disabled={props.busy}
              onClick={() => props.choose(account.account_id)}
            >
              {account.organization_name}
              {account.merchants.length > 0 && ` — ${account.merchants.map((m) => m.merchant_name).join(', ')}`}
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}

export function SignIn(props: { reason?: string }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [accounts, setAccounts] = useState<AccountChoice | null>(null);
  // The chosen account goes with the same e-mail and password: choosing sends the (hidden) form again.
  const chosen = useRef<string | undefined>(undefined);
  const form = useRef<HTMLFormElement>(null);
  const { busy, error, submit, setError } = useSubmit(async () => {
    const login = await publicCall<MerchantLogin>('POST', '/auth/merchant/login', {
      email,
      password,
      ...(chosen.current ? { account_id: chosen.current } : {}),
    });
    if ('choose_account' in login) {
      setAccounts(login.choose_account);
      return;
    }
    const active = login.user.merchants.filter((membership) => membership.status === 'active');
    if (active.length === 0) throw new Error('Your account has no active merchant membership yet.');
    const remembered = localStorage.getItem(`switchyard.dashboard.merchant.${login.user.id}`);
    const merchantId = active.find((m) => m.merchant_id === remembered)?.merchant_id ?? active[0].merchant_id;
    const { merchants, ...user } = login.user;
    setSession(withTokens({ user, memberships: merchants, merchantId }, login));
    scheduleRefresh();
    const next = new URLSearchParams(location.search).get('next');
    navigate(next && next.startsWith('/') && !next.startsWith('//') ? next : '/overview', true);
  });
  const choose = (accountId: string) => {
    chosen.current = accountId;
    form.current?.requestSubmit();
  };
  const restart = () => {
    setAccounts(null);
    chosen.current = undefined;
    setError(null);
  };
  return (
    <AuthCard title="Sign in to your merchant Dashboard">
      {props.reason && <Notice>{props.reason}</Notice>}
      <form ref={form} onSubmit={submit} noValidate={false} hidden={accounts !== null}>
        <Field label="E-mail">
          {(a) => (
            <input
              {...a}
              type="email"
              autoComplete="username"
              required
              value={email}
              onInput={(e) => (setEmail(inputValue(e)), restart())}
            />
          )}
        </Field>
        <Field label="Password">
          {(a) => (
            <input
              {...a}
              type="password"
              autoComplete="current-password"
              required
              value={password}
              onInput={(e) => (setPassword(inputValue(e)), restart())}
            />
          )}
        </Field>
        <button type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      {accounts && <ChooseAccount accounts={accounts} busy={busy} choose={choose} />}
      <ErrorNote error={error} />
      <p class="aside">
        {accounts ? (
          <button type="button" class="secondary" onClick={restart}>
            Use another e-mail
          </button>
        ) : (
          <Link to="/forgot-password">Forgot your password?</Link>
        )}
      </p>
    </AuthCard>
  );
}

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

function NewPasswordFields(props: {
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

const mismatch = () => new ApiError(400, 'PASSWORD_MISMATCH', 'The two passwords differ.');

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

type InvitationCheck = Answer<'getInvitationsVerify'>;

/**
 * The invitation link: checked first (GET /invitations/verify), so a used or expired link says so before anything
 * is typed; a new person chooses a password, a person with an account already enters theirs; or declines.
 */
export function AcceptInvitation(props: { token: string | null }) {
  const { token } = props;
  const check = useLoad(
    () =>
      token
        ? publicCall<InvitationCheck>('GET', `/invitations/verify?token=${encodeURIComponent(token)}`)
        : Promise.reject(new Error('This link has no invitation token. Open the link from the e-mail again.')),
    [token],
  );
  const [outcome, setOutcome] = useState<{ accepted: string } | { declined: true } | null>(null);
  const title = 'Accept your invitation';
  if (check.state === 'loading') {
    return (
      <AuthCard title={title}>
        <p role="status">Checking the invitation…</p>
      </AuthCard>
    );
  }
  if (check.state === 'error') {
    return (
      <AuthCard title={title}>
        <ErrorNote error={check.error} />
      </AuthCard>
    );
  }
  const invitation = check.data;
  return (
    <AuthCard title={title}>
      {outcome && 'accepted' in outcome ? (
        <Notice tone="success">
          Welcome! Sign in as {outcome.accepted}. <Link to="/sign-in">Sign in</Link>
        </Notice>
      ) : outcome ? (
        <Notice>You declined the invitation; nothing was added to any account.</Notice>
      ) : !invitation.valid || !token ? (
        <ErrorNote error={new Error('This invitation is invalid, expired or already used. Ask for a new one.')} />
      ) : (
        <InvitationForm token={token} invitation={invitation} done={setOutcome} />
      )}
      <p class="aside">
        <Link to="/sign-in">Go to sign in</Link>
      </p>
    </AuthCard>
  );
}

function InvitationForm(props: {
  token: string;
  invitation: InvitationCheck;
  done: (outcome: { accepted: string } | { declined: true }) => void;
}) {
  const { invitation } = props;
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const accept = useSubmit(async () => {
    if (invitation.is_new_user && password !== confirm) throw mismatch();
    const answer = await publicCall<Answer<'postAuthMerchantAcceptInvitation'>>(
      'POST',
      '/auth/merchant/accept-invitation',
      {
        token: props.token,
        password,
        ...(name.trim() ? { name: name.trim() } : {}),
      },
    );
    props.done({ accepted: answer.email });
  });
  const decline = useSubmit(async () => {
    await publicCall('POST', '/invitations/decline', { token: props.token });
    props.done({ declined: true });
  });
  return (
    <>
      <p>
        {invitation.inviter_name ?? invitation.organization_name} invited <strong>{invitation.email}</strong> to a
        merchant of {invitation.organization_name} as {invitation.role}.
      </p>
      <form onSubmit={accept.submit}>
        {invitation.is_new_user ? (
          <>
            <Field label="Your name (optional)">
              {(a) => (
                <input {...a} type="text" autoComplete="name" value={name} onInput={(e) => setName(inputValue(e))} />
              )}
            </Field>
            <NewPasswordFields password={password} confirm={confirm} set={(p, c) => (setPassword(p), setConfirm(c))} />
          </>
        ) : (
          <Field label="Your current password" hint="You have an account already: your password proves it is you.">
            {(a) => (
              <input
                {...a}
                type="password"
                autoComplete="current-password"
                required
                value={password}
                onInput={(e) => setPassword(inputValue(e))}
              />
            )}
          </Field>
        )}
        <ErrorNote error={accept.error} />
        <button type="submit" disabled={accept.busy || decline.busy}>
          {invitation.is_new_user ? 'Accept and set the password' : 'Accept the invitation'}
        </button>
      </form>
      <form onSubmit={decline.submit} class="aside">
        <ErrorNote error={decline.error} />
        <button type="submit" class="secondary" disabled={accept.busy || decline.busy}>
          Decline the invitation
        </button>
      </form>
    </>
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

export async function signOut(): Promise<void> {
  try {
    await call('POST', '/auth/logout');
  } finally {
    setSession(null, 'You are signed out.');
  }
}
