/**
 * The merchant Dashboard: the signed-in shell (navigation, merchant switcher, the live/test data switch and its
 * banner, sign out) and the page routes.
 */
import { render, type ComponentChildren, type JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { call, scheduleRefresh, type Answer } from './api';
import { ModeBanner, ModeSwitch, useMode, type ModeState } from './mode';
import { match, navigate, useRoute } from './router';
import { signInReason } from './sign-in-reason';
import { activeMemberships, currentSession, onSessionChange, setSession, type Session } from './session';
import { Link } from './ui';
import { AcceptInvitation, ChangePassword, ForgotPassword, ResetPassword, SignIn, signOut } from './pages/auth';
import { SubscriptionDetail, SubscriptionList } from './pages/subscriptions';
import { OrderDetail, OrderList, TransactionDetail, TransactionList } from './pages/transactions';
import { Webhooks } from './pages/webhooks';
import { Team } from './pages/team';
import { ConnectorDetail, ConnectorList, NewConnector } from './pages/connectors';
import { RoutingProfileDetail, RoutingProfiles } from './pages/routing';
import { Overview } from './pages/overview';
import { Activity } from './pages/activity';
import { ApiKeys } from './pages/api-keys';
import { CustomerDetail, CustomerList } from './pages/customers';
import { Catalog, CatalogProduct } from './pages/catalog';

const PUBLIC_PAGES = ['/sign-in', '/forgot-password', '/reset-password', '/accept-invitation'];

const NAV: [string, string][] = [
  ['/overview', 'Overview'],
  ['/subscriptions', 'Subscriptions'],
  ['/payments', 'Payments'],
  ['/orders', 'Orders'],
  ['/customers', 'Customers'],
  ['/catalog', 'Catalog'],
  ['/webhooks', 'Webhooks'],
  ['/connectors', 'Connectors'],
  ['/routing', 'Routing'],
  ['/team', 'Team'],
  ['/api-keys', 'API keys'],
  ['/activity', 'Activity'],
];

function MerchantSwitcher(props: { session: Session }) {
  const memberships = activeMemberships(props.session);
  const choose = (merchantId: string) => {
    localStorage.setItem(`switchyard.dashboard.merchant.${props.session.user.id}`, merchantId);
    setSession({ ...props.session, merchantId });
    navigate('/overview');
  };
  if (memberships.length <= 1) {
    return <p class="merchant-name">{memberships[0]?.merchant_name ?? 'No merchant'}</p>;
  }
  return (
    <div class="switcher">
      <label for="merchant-switcher">Merchant</label>
      <select id="merchant-switcher" value={props.session.merchantId} onChange={(e) => choose(e.currentTarget.value)}>
        {memberships.map((m) => (
          <option key={m.merchant_id} value={m.merchant_id}>
            {m.merchant_name} ({m.organization_name})
          </option>
        ))}
      </select>
    </div>
  );
}

function Shell(props: { session: Session; mode: ModeState | null; path: string; children: ComponentChildren }) {
  const [menuOpen, setMenuOpen] = useState(false);
  useEffect(() => setMenuOpen(false), [props.path]);
  return (
    <div class="shell">
      <a class="skip" href="#main">
        Skip to the page
      </a>
      <header class="topbar">
        <span class="brand">Switchyard</span>
        <button
          type="button"
          class="menu-toggle secondary"
          aria-expanded={menuOpen}
          aria-controls="sidebar"
          onClick={() => setMenuOpen(!menuOpen)}
        >
          Menu
        </button>
      </header>
      <aside id="sidebar" class={menuOpen ? 'open' : ''}>
        <MerchantSwitcher session={props.session} />
        {props.mode && <ModeSwitch state={props.mode} />}
        <nav aria-label="Dashboard">
          <ul>
            {NAV.map(([to, text]) => (
              <li key={to}>
                <Link to={to} aria-current={props.path.startsWith(to) ? 'page' : undefined}>
                  {text}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <div class="account">
          <p>{props.session.user.email}</p>
          <Link to="/account">Change password</Link>
          <button type="button" class="secondary" onClick={() => void signOut()}>
            Sign out
          </button>
        </div>
      </aside>
      <main id="main" tabIndex={-1}>
        {props.mode && <ModeBanner state={props.mode} />}
        {props.children}
      </main>
    </div>
  );
}

function Page(props: { path: string }): JSX.Element {
  const { path } = props;
  let params: Record<string, string> | null;
  if (match('/overview', path)) return <Overview />;
  if ((params = match('/subscriptions/:id', path))) return <SubscriptionDetail id={params.id} />;
  if (match('/subscriptions', path)) return <SubscriptionList />;
  if ((params = match('/payments/:id', path))) return <TransactionDetail id={params.id} />;
  if (match('/payments', path)) return <TransactionList />;
  if ((params = match('/orders/:id', path))) return <OrderDetail id={params.id} />;
  if (match('/orders', path)) return <OrderList />;
  if (match('/webhooks', path)) return <Webhooks />;
  if (match('/connectors/new', path)) return <NewConnector />;
  if ((params = match('/connectors/:id', path))) return <ConnectorDetail id={params.id} />;
  if (match('/connectors', path)) return <ConnectorList />;
  if ((params = match('/routing/:id', path))) return <RoutingProfileDetail id={params.id} />;
  if (match('/routing', path)) return <RoutingProfiles />;
  if (match('/team', path)) return <Team />;
  if (match('/activity', path)) return <Activity />;
  if (match('/api-keys', path)) return <ApiKeys />;
  if ((params = match('/customers/:id', path))) return <CustomerDetail id={params.id} />;
  if (match('/customers', path)) return <CustomerList />;
  if ((params = match('/catalog/:id', path))) return <CatalogProduct id={params.id} />;
  if (match('/catalog', path)) return <Catalog />;
  if (match('/account', path)) return <ChangePassword />;
  return (
    <>
      <h1>Page not found</h1>
      <p>
        <Link to="/subscriptions">Go to subscriptions</Link>
      </p>
    </>
  );
}

function App() {
  const { path, search } = useRoute();
  const [session, setCurrent] = useState<Session | null>(currentSession());
  const mode = useMode(session?.merchantId, path, search);
  const [reason, setReason] = useState<string | undefined>(signInReason(search.get('reason')));

  useEffect(
    () =>
      onSessionChange((next, why) => {
        setCurrent(next);
        if (!next) {
          setReason(why);
          const back = PUBLIC_PAGES.includes(routePathOnly()) ? '' : `?next=${encodeURIComponent(routePathOnly())}`;
          navigate(`/sign-in${why?.startsWith('Your session') ? back : ''}`, true);
        }
      }),
    [],
  );

  // Signed in: keep the token fresh and the memberships current (a merchant may have been added or removed).
  useEffect(() => {
    if (!session) return;
    scheduleRefresh();
    void call<Answer<'getAuthMerchantMemberships'>>('GET', '/auth/merchant/memberships').then(
      ({ memberships }) => {
        const still = currentSession();
        if (!still) return;
        const active = memberships.filter((m) => m.status === 'active');
        const merchantId = active.some((m) => m.merchant_id === still.merchantId)
          ? still.merchantId
          : (active[0]?.merchant_id ?? still.merchantId);
        setSession({ ...still, memberships, merchantId });
      },
      () => undefined,
    );
    // Only when the person (not the token) changes.
  }, [session?.user.id]);

  if (match('/sign-in', path)) return <SignIn reason={reason} />;
  if (match('/forgot-password', path)) return <ForgotPassword />;
  if (match('/reset-password', path)) return <ResetPassword token={search.get('token')} />;
  if (match('/accept-invitation', path)) return <AcceptInvitation token={search.get('token')} />;
  if (!session) {
    // Back to the page asked for after sign-in, its query (filters, the test-data flag) with it.
    const next = `${path}${location.search}`;
    queueMicrotask(() => navigate(`/sign-in${path === '/' ? '' : `?next=${encodeURIComponent(next)}`}`, true));
    return null;
  }
  if (path === '/') {
    queueMicrotask(() => navigate('/overview', true));
    return null;
  }
  return (
    <Shell session={session} mode={mode} path={path}>
      {mode ? (
        <Page key={`${session.merchantId}${mode.mode}${path}`} path={path} />
      ) : (
        <p class="loading" role="status">
          Loading…
        </p>
      )}
    </Shell>
  );
}

const routePathOnly = () => location.pathname.replace(/^\/dashboard/, '') || '/';

const root = document.getElementById('app')!;
// The "Loading…" placeholder of index.html goes: render() adds to a container, it does not replace it.
root.textContent = '';
render(<App />, root);
