/**
 * Connectors: list, add (a form built from the provider catalog's credential JSON Schema), edit, deactivate,
 * delete, test (a refused test is an error), webhook logs, and health: the circuit breaker's state, the
 * recent approval rate and last failure, and opening or closing the circuit by hand (owners and admins; the API
 * refuses a viewer). A connector without a webhook secret is flagged: its settlement relies on polling only.
 * The list shows what the hosted checkout offers, from routing, so adding a connector never changes what buyers
 * see without staff seeing it here.
 */
import { useProviderName } from '../providers';
import { useState } from 'preact/hooks';
import { call, type Item } from '../api';
import { label, when } from '../format';
import { DataTable, usePagedList } from '../list';
import { Chip, ErrorNote, Facts, Link, Notice, PageHeader, useLoad, useSubmit } from '../ui';
import { type Connector, WEBHOOK_FLAG } from './connectors/model';
import { CheckoutLive } from './connectors/checkout-live';
import { CircuitChip, rate } from './connectors/health';
import { type CredentialCheck, ManageConnector, CheckResult } from './connectors/manage';

export { NewConnector } from './connectors/new-connector';

export function ConnectorList() {
  const providerName = useProviderName();
  const list = usePagedList<Connector>('/merchant/connectors');
  const deleted = new URLSearchParams(location.search).get('deleted');
  return (
    <>
      <PageHeader title="Connectors">
        <Link to="/connectors/new" class="button">
          Add a connector
        </Link>
      </PageHeader>
      {deleted && <Notice tone="success">Connector “{deleted}” deleted.</Notice>}
      <CheckoutLive />
      <h2>Your connectors</h2>
      <DataTable
        loaded={list.loaded}
        onPage={list.onPage}
        what="connectors"
        caption="Connectors"
        head={['Name', 'Provider', 'Status', 'Webhooks', 'Health', 'Approval (15 min)', 'Mode', 'Added']}
        empty={<p>No connector yet: add one to start charging through a payment provider.</p>}
        row={(c) => (
          <tr key={c.id}>
            <td>
              <Link to={`/connectors/${c.id}`}>{c.name}</Link>
            </td>
            <td>{providerName(c.provider_slug)}</td>
            <td>
              <Chip status={c.is_active} text={c.is_active ? 'Active' : 'Inactive'} />
            </td>
            <td>{c.has_webhook_secret ? 'Signed' : <Chip status="warning" text={WEBHOOK_FLAG} />}</td>
            <td>
              <CircuitChip health={c.health} />
            </td>
            <td>{rate(c.health)}</td>
            <td>{c.is_test_mode ? 'Test' : 'Live'}</td>
            <td>{when(c.created_at)}</td>
          </tr>
        )}
      />
    </>
  );
}

type Inbound = Item<'getMerchantConnectorsConnectorIdWebhooksInbounds'>;

type Invalid = Item<'getMerchantConnectorsConnectorIdWebhooksInvalid'>;

export function ConnectorDetail(props: { id: string }) {
  const providerName = useProviderName();
  const loaded = useLoad(() => call<Connector>('GET', `/merchant/connectors/${props.id}`), [props.id]);
  const inbound = usePagedList<Inbound>(`/merchant/connectors/${props.id}/webhooks/inbounds`, {}, 10);
  const invalid = usePagedList<Invalid>(`/merchant/connectors/${props.id}/webhooks/invalid`, {}, 10);
  const [check, setCheck] = useState<CredentialCheck | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const test = useSubmit(async () => {
    setCheck(null);
    setCheck(await call<CredentialCheck>('POST', `/merchant/connectors/${props.id}/test`));
  });
  const circuit = useSubmit(async () => {
    if (loaded.state !== 'ready') return;
    const to = loaded.data.health.state === 'closed' ? 'open' : 'closed';
    await call<Connector>('POST', `/merchant/connectors/${props.id}/circuit`, { state: to });
    loaded.reload();
  });
  const back = { to: '/connectors', text: 'Connectors' };
  if (loaded.state === 'loading') return <p role="status">Loading the connector…</p>;
  if (loaded.state === 'error')
    return (
      <>
        <PageHeader title="Connector" back={back} />
        <ErrorNote error={loaded.error} retry={loaded.reload} />
      </>
    );
  const c = loaded.data;
  return (
    <>
      <PageHeader title={c.name} back={back}>
        <Chip status={c.is_active} text={c.is_active ? 'Active' : 'Inactive'} />
      </PageHeader>
      {new URLSearchParams(location.search).get('created') && !message && (
        <Notice tone="success">
          Connector added. Buyers see nothing new until a routing profile uses it:{' '}
          <Link to="/routing">add it to routing</Link>, then check “Live at checkout” on the Connectors page.
        </Notice>
      )}
      {message && <Notice tone="success">{message}</Notice>}
      {!c.has_webhook_secret && (
        <Notice tone="warn">
          <p>
            <strong>{WEBHOOK_FLAG}.</strong> Without a webhook secret Switchyard cannot verify this provider’s webhooks,
            so pending payments (pix, boleto, cards held for review) are settled only when Switchyard polls the provider
            — later than a webhook would tell it.
          </p>
          <p>Add the signing secret with Edit, and register the webhook URL below at the provider.</p>
        </Notice>
      )}
      <Facts
        items={[
          ['Connector id', <code>{c.id}</code>],
          ['Provider', providerName(c.provider_slug)],
          ['Authentication', c.auth_method === 'oauth2' ? 'OAuth 2 client' : 'API key'],
          ['Mode', c.is_test_mode ? 'Test' : 'Live'],
          ['Country', c.country_code ?? 'Any'],
          ['Webhook secret', c.has_webhook_secret ? 'Configured' : 'Not configured (polling only)'],
          ['Added', when(c.created_at)],
        ]}
      />
      <ManageConnector
        connector={c}
        changed={(updated, text) => {
          loaded.set({ ...c, ...updated });
          setMessage(text);
        }}
      />
      {c.webhook_url && (
        <details class="secret">
          <summary>Webhook URL to configure at the provider (treat it as a secret)</summary>
          <code class="break">{c.webhook_url}</code>
        </details>
      )}
      <section aria-labelledby="health">
        <h2 id="health">Health</h2>
        <Facts
          items={[
            ['Circuit', <CircuitChip health={c.health} />],
            ['Consecutive failures', String(c.health.consecutive_failures)],
            ['Approval rate (last 15 minutes)', `${rate(c.health)} of ${c.health.window.attempts} attempts`],
            ['Declined / errors', `${c.health.window.declined} / ${c.health.window.errors}`],
            [
              'Last failure',
              c.health.last_failure_at
                ? `${when(c.health.last_failure_at)} (${c.health.last_failure_code ?? '?'})`
                : '—',
            ],
            ['Next probe', c.health.next_probe_at ? when(c.health.next_probe_at) : '—'],
          ]}
        />
        <form onSubmit={circuit.submit}>
          <button type="submit" disabled={circuit.busy}>
            {c.health.state === 'closed'
              ? 'Open the circuit (stop routing to it)'
              : 'Close the circuit (route to it again)'}
          </button>
        </form>
        <ErrorNote error={circuit.error} />
      </section>
      <section aria-labelledby="test">
        <h2 id="test">Credentials</h2>
        <form onSubmit={test.submit}>
          <button type="submit" disabled={test.busy}>
            {test.busy ? 'Testing…' : 'Test the credentials'}
          </button>
        </form>
        {check && <CheckResult check={check} />}
        <ErrorNote error={test.error} />
      </section>
      <section aria-labelledby="inbound">
        <h2 id="inbound">Received webhooks</h2>
        <DataTable
          loaded={inbound.loaded}
          onPage={inbound.onPage}
          what="received webhooks"
          caption="Received webhooks"
          head={['Event', 'Outcome', 'Reason', 'Received']}
          empty={<p>No webhook received from the provider in the last 30 days.</p>}
          row={(w) => (
            <tr key={w.id}>
              <td>{w.event_type ?? '—'}</td>
              <td>
                <Chip status={w.status} />
              </td>
              <td>{w.reason ?? '—'}</td>
              <td>{when(w.received_at)}</td>
            </tr>
          )}
        />
      </section>
      <section aria-labelledby="invalid">
        <h2 id="invalid">Refused webhooks</h2>
        <DataTable
          loaded={invalid.loaded}
          onPage={invalid.onPage}
          what="refused webhooks"
          caption="Refused webhooks"
          head={['Reason', 'Detail', 'Received']}
          empty={<p>No refused webhook in the last 30 days.</p>}
          row={(w) => (
            <tr key={w.id}>
              <td>
                <Chip status="failed" text={label(w.reason)} />
              </td>
              <td>{w.detail ?? '—'}</td>
              <td>{when(w.received_at)}</td>
            </tr>
          )}
        />
      </section>
    </>
  );
}
