/**
 * Signing in: e-mail and password, the account choice when they open several organizations, and signing out.
 * The password pages and the invitation are beside it, in auth/.
 */
import { useRef, useState } from 'preact/hooks';
import { call, publicCall, scheduleRefresh, withTokens, type Answer } from '../api';
import { navigate } from '../router';
import { setSession } from '../session';
import { ErrorNote, Field, Link, Notice, inputValue, useSubmit } from '../ui';
import { AuthCard } from './auth/card';

export { AcceptInvitation } from './auth/invitation';
export { ChangePassword, ForgotPassword, ResetPassword } from './auth/passwords';

type MerchantLogin = Answer<'postAuthMerchantLogin'>;

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

export async function signOut(): Promise<void> {
  try {
    await call('POST', '/auth/logout');
  } finally {
    setSession(null, 'You are signed out.');
  }
}
