/**
 * Connectors: list, add (a form built from the provider catalog's credential JSON Schema), test, webhook logs, and
 * health (issue 26): the circuit breaker's state, the recent approval rate and last failure, and opening or closing
 * the circuit by hand (owners and admins; the API refuses a viewer).
 */
import type { TargetedEvent } from 'preact';
import { useState } from 'preact/hooks';
import { call, type Page } from '../api';
import { label, when } from '../format';
import { DataTable, usePagedList } from '../list';
import { navigate } from '../router';
import { Chip, ErrorNote, Facts, Field, Link, Notice, PageHeader, inputValue, useLoad, useSubmit } from '../ui';

interface Connector {
  id: string;
  provider_slug: string;
  name: string;
  country_code: string | null;
  auth_method: string;
  is_test_mode: boolean;
  is_active: boolean;
  created_at: string;
  webhook_url: string | null;
  has_webhook_secret: boolean;
  health: Health;
}

interface Health {
  state: 'closed' | 'open' | 'half_open';
  consecutive_failures: number;
  opened_at: string | null;
  next_probe_at: string | null;
  last_failure_at: string | null;
  last_failure_code: string | null;
  window: { attempts: number; approved: number; declined: number; errors: number; approval_rate: number | null };
}

const CIRCUIT_TEXT: Record<Health['state'], string> = {
  closed: 'Healthy',
  open: 'Circuit open',
  half_open: 'Probing',
};

/** The circuit's state as a chip: closed is good, open is a failure, half-open is being probed. */
function CircuitChip(props: { health: Health | undefined }) {
  const state = props.health?.state ?? 'closed';
  const tone = state === 'closed' ? 'active' : state === 'open' ? 'failed' : 'pending';
  return <Chip status={tone} text={CIRCUIT_TEXT[state]} />;
}

const rate = (health: Health | undefined) =>
  health?.window.approval_rate == null ? '—' : `${Math.round(health.window.approval_rate * 100)}%`;

interface JsonSchema {
  type?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  description?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  anyOf?: JsonSchema[];
}

interface Provider {
  id: string;
  slug: string;
  display_name: string;
  is_active: boolean;
  supported_auth_methods: string[] | null;
  credential_schemas: Record<string, JsonSchema | undefined>;
  webhook_secret_format: string | null;
}

export function ConnectorList() {
  const list = usePagedList<Connector>('/merchant/connectors');
  return (
    <>
      <PageHeader title="Connectors">
        <Link to="/connectors/new" class="button">
          Add a connector
        </Link>
      </PageHeader>
      <DataTable
        loaded={list.loaded}
        onPage={list.onPage}
        what="connectors"
        caption="Connectors"
        head={['Name', 'Provider', 'Status', 'Health', 'Approval (15 min)', 'Mode', 'Added']}
        empty={<p>No connector yet: add one to start charging through a payment provider.</p>}
        row={(c) => (
          <tr key={c.id}>
            <td>
              <Link to={`/connectors/${c.id}`}>{c.name}</Link>
            </td>
            <td>{c.provider_slug}</td>
            <td>
              <Chip status={c.is_active} text={c.is_active ? 'Active' : 'Inactive'} />
            </td>
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

/** The credential schema for one auth method: a plain object, or the matching branch of a union (oauth2 …). */
function credentialFields(schema: JsonSchema | undefined): [string, JsonSchema, boolean][] {
  const object = schema?.properties ? schema : schema?.anyOf?.[0];
  if (!object?.properties) return [];
  return Object.entries(object.properties).map(([name, field]) => [
    name,
    field,
    (object.required ?? []).includes(name),
  ]);
}

const SECRET_NAMES = /secret|password|token|key/i;

export function NewConnector() {
  const providers = useLoad(() => call<Page<Provider>>('GET', '/merchant/payment-providers?limit=100'), []);
  const [slug, setSlug] = useState('');
  const [authMethod, setAuthMethod] = useState('api_key');
  const [name, setName] = useState('');
  const [testMode, setTestMode] = useState(true);
  const [credentials, setCredentials] = useState<Record<string, string>>({});
  const [webhookSecret, setWebhookSecret] = useState('');
  const provider = providers.state === 'ready' ? providers.data.data.find((p) => p.slug === slug) : undefined;
  const methods = provider?.supported_auth_methods ?? ['api_key'];
  const fields = credentialFields(provider?.credential_schemas[authMethod]);
  const { busy, error, submit } = useSubmit(async () => {
    const created = await call<Connector>('POST', '/merchant/connectors', {
      provider_slug: slug,
      name: name.trim(),
      is_test_mode: testMode,
      auth_method: authMethod,
      credentials: Object.fromEntries(fields.map(([field]) => [field, credentials[field] ?? ''])),
      ...(webhookSecret ? { webhook_secret: webhookSecret } : {}),
    });
    navigate(`/connectors/${created.id}?created=1`);
  });
  return (
    <>
      <PageHeader title="Add a connector" back={{ to: '/connectors', text: 'Connectors' }} />
      {providers.state === 'loading' && <p role="status">Loading the providers…</p>}
      {providers.state === 'error' && <ErrorNote error={providers.error} retry={providers.reload} />}
      {providers.state === 'ready' && (
        <form onSubmit={submit} class="narrow">
          <Field label="Provider">
            {(a) => (
              <select
                {...a}
                required
                value={slug}
                onChange={(e) => {
                  const next = providers.data.data.find((p) => p.slug === inputValue(e));
                  setSlug(inputValue(e));
                  setAuthMethod(next?.supported_auth_methods?.[0] ?? 'api_key');
                  setCredentials({});
                }}
              >
                <option value="">Choose a provider</option>
                {providers.data.data.map((p) => (
                  <option key={p.slug} value={p.slug}>
                    {p.display_name}
                  </option>
                ))}
              </select>
            )}
          </Field>
          {provider && (
            <>
              {methods.length > 1 && (
                <Field label="Authentication">
                  {(a) => (
                    <select
                      {...a}
                      value={authMethod}
                      onChange={(e) => (setAuthMethod(inputValue(e)), setCredentials({}))}
                    >
                      {methods.map((m) => (
                        <option key={m} value={m}>
                          {m === 'oauth2' ? 'OAuth 2 client' : 'API key'}
                        </option>
                      ))}
                    </select>
                  )}
                </Field>
              )}
              <Field label="Name" hint="Shown in routing and in this list; up to 100 characters.">
                {(a) => <input {...a} required maxLength={100} value={name} onInput={(e) => setName(inputValue(e))} />}
              </Field>
              <div class="field checkbox">
                <input
                  id="test-mode"
                  type="checkbox"
                  checked={testMode}
                  onChange={(e) => setTestMode(e.currentTarget.checked)}
                />
                <label for="test-mode">Test mode (the provider's sandbox; no real money)</label>
              </div>
              <fieldset>
                <legend>Credentials (stored encrypted, never shown again)</legend>
                {fields.length === 0 && <p class="hint">This provider takes no credentials here.</p>}
                {fields.map(([field, schema, required]) => (
                  <Field key={field} label={label(field)} hint={schema.description}>
                    {(a) => {
                      const common = {
                        ...a,
                        autoComplete: 'off',
                        required,
                        pattern: schema.pattern,
                        minLength: schema.minLength,
                        maxLength: schema.maxLength,
                        value: credentials[field] ?? '',
                        onInput: (e: TargetedEvent<HTMLInputElement>) =>
                          setCredentials({ ...credentials, [field]: inputValue(e) }),
                      };
                      return SECRET_NAMES.test(field) ? (
                        <input {...common} type="password" />
                      ) : (
                        <input {...common} type="text" />
                      );
                    }}
                  </Field>
                ))}
              </fieldset>
              <Field label="Webhook signing secret (optional)" hint={provider.webhook_secret_format ?? undefined}>
                {(a) => (
                  <input
                    {...a}
                    type="password"
                    autoComplete="off"
                    value={webhookSecret}
                    onInput={(e) => setWebhookSecret(inputValue(e))}
                  />
                )}
              </Field>
              <ErrorNote error={error} />
              <button type="submit" disabled={busy}>
                {busy ? 'Adding…' : 'Add the connector'}
              </button>
            </>
          )}
        </form>
      )}
    </>
  );
}

interface CredentialCheck {
  ok: boolean;
  provider_message: string;
  checked_at: string;
}
interface Inbound {
  id: string;
  status: string;
  event_type: string | null;
  provider_event_id: string | null;
  reason: string | null;
  received_at: string;
}
interface Invalid {
  id: string;
  reason: string;
  detail: string | null;
  received_at: string;
}

export function ConnectorDetail(props: { id: string }) {
  const loaded = useLoad(() => call<Connector>('GET', `/merchant/connectors/${props.id}`), [props.id]);
  const inbound = usePagedList<Inbound>(`/merchant/connectors/${props.id}/webhooks/inbounds`, {}, 10);
  const invalid = usePagedList<Invalid>(`/merchant/connectors/${props.id}/webhooks/invalid`, {}, 10);
  const [check, setCheck] = useState<CredentialCheck | null>(null);
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
      {new URLSearchParams(location.search).get('created') && <Notice tone="success">Connector added.</Notice>}
      <Facts
        items={[
          ['Connector id', <code>{c.id}</code>],
          ['Provider', c.provider_slug],
          ['Authentication', c.auth_method === 'oauth2' ? 'OAuth 2 client' : 'API key'],
          ['Mode', c.is_test_mode ? 'Test' : 'Live'],
          ['Country', c.country_code ?? 'Any'],
          ['Webhook secret', c.has_webhook_secret ? 'Configured' : 'Not configured'],
          ['Added', when(c.created_at)],
        ]}
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
        {check && (
          <Notice tone={check.ok ? 'success' : 'info'}>
            {check.ok ? 'The provider accepted the credentials.' : 'The provider refused the credentials.'}{' '}
            {check.provider_message} ({when(check.checked_at)})
          </Notice>
        )}
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
