/** Accepting (or declining) an invitation to a merchant from the e-mailed link. */
import { useState } from 'preact/hooks';
import { publicCall, type Answer } from '../../api';
import { ErrorNote, Field, Link, Notice, inputValue, useLoad, useSubmit } from '../../ui';
import { AuthCard } from './card';
import { mismatch, NewPasswordFields } from './passwords';

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
