/**
 * Connectors: list, add (a form built from the provider catalog's credential JSON Schema), edit, deactivate,
 * delete, test (a refused test is an error), webhook logs, and health: the circuit breaker's state, the
 * recent approval rate and last failure, and opening or closing the circuit by hand (owners and admins; the API
 * refuses a viewer). A connector without a webhook secret is flagged: its settlement relies on polling only.
 * The list shows what the hosted checkout offers, from routing, so adding a connector never changes what buyers
 * see without staff seeing it here.
 */
import type { TargetedEvent } from 'preact';
import { useState } from 'preact/hooks';
import { call, type Answer, type Item, type Page } from '../api';
import { label, when } from '../format';
import { DataTable, usePagedList } from '../list';
import { navigate } from '../router';
import {
  Chip,
  ErrorNote,
  Facts,
  Field,
  Link,
  Notice,
  PageHeader,
  Table,
  canManageMerchant,
  inputValue,
  useLoad,
  useSubmit,
} from '../ui';

type Connector = Item<'getMerchantConnectors'>;

type Health = Connector['health'];

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

/** A catalog entry; the document declares each credential schema as an object, the page reads it as JSON Schema. */
type Provider = Omit<Item<'getMerchantPaymentProviders'>, 'credential_schemas'> & {
  credential_schemas: Partial<Record<string, JsonSchema>>;
};

/** GET /merchant/checkout-methods: per checkout method, the connectors routing can send it to. */
type CheckoutMethods = Answer<'getMerchantCheckoutMethods'>;

const METHOD_NAMES: Record<CheckoutMethods['methods'][number]['payment_method'], string> = {
  credit_card: 'Card',
  pix: 'Pix',
  boleto: 'Boleto',
  wallet: 'Wallets (Apple Pay, Google Pay)',
};

/** What buyers can pay with at the hosted checkout right now, and through which connectors (from routing). */
function CheckoutLive() {
  const loaded = useLoad(() => call<CheckoutMethods>('GET', '/merchant/checkout-methods'), []);
  return (
    <section aria-labelledby="checkout-live">
      <h2 id="checkout-live">Live at checkout</h2>
      <p class="hint">
        The hosted checkout offers a method only when a routing profile sends it to an active connector that takes it.
        Adding a connector changes nothing for buyers until routing uses it: <Link to="/routing">edit routing</Link>.
      </p>
      {loaded.state === 'loading' && <p role="status">Loading the checkout methods…</p>}
      {loaded.state === 'error' && <ErrorNote error={loaded.error} retry={loaded.reload} />}
      {loaded.state === 'ready' && (
        <Table caption="Checkout methods" head={['Method', 'Buyers see it', 'Through', 'Card brands']}>
          {loaded.data.methods.map((m) => (
            <tr key={m.payment_method} data-method={m.payment_method}>
              <td>{METHOD_NAMES[m.payment_method]}</td>
              <td>
                <Chip status={m.offered ? 'active' : 'expired'} text={m.offered ? 'Offered' : 'Not offered'} />
              </td>
              <td>
                {m.connectors.length > 0
                  ? m.connectors.map((c) => c.name).join(', ')
                  : 'No connector in routing takes it'}
              </td>
              <td>{m.payment_method === 'credit_card' ? m.card_brands.map(brandName).join(', ') || '—' : '—'}</td>
            </tr>
          ))}
        </Table>
      )}
    </section>
  );
}

const BRAND_NAMES: Record<string, string> = { amex: 'American Express', jcb: 'JCB', diners: 'Diners Club' };
const brandName = (brand: string) => BRAND_NAMES[brand] ?? label(brand);

/** The list's flag for a connector without a webhook secret: settlement waits for polling. */
const WEBHOOK_FLAG = 'No webhook secret: polling only';

export function ConnectorList() {
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
            <td>{c.provider_slug}</td>
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

type CredentialCheck = Answer<'postMerchantConnectorsConnectorIdTest'>;
type Inbound = Item<'getMerchantConnectorsConnectorIdWebhooksInbounds'>;
type Invalid = Item<'getMerchantConnectorsConnectorIdWebhooksInvalid'>;

/** Name, credentials (replaced only when typed) and the webhook secret (set, replaced or removed). */
function EditConnector(props: { connector: Connector; saved: (c: Connector) => void; cancel: () => void }) {
  const c = props.connector;
  const providers = useLoad(() => call<Page<Provider>>('GET', '/merchant/payment-providers?limit=100'), []);
  const [name, setName] = useState(c.name);
  const [credentials, setCredentials] = useState<Record<string, string>>({});
  const [webhookSecret, setWebhookSecret] = useState('');
  const [removeSecret, setRemoveSecret] = useState(false);
  const provider =
    providers.state === 'ready' ? providers.data.data.find((p) => p.slug === c.provider_slug) : undefined;
  const fields = credentialFields(provider?.credential_schemas[c.auth_method]);
  const replacing = fields.some(([field]) => (credentials[field] ?? '') !== '');
  const { busy, error, submit } = useSubmit(async () => {
    const body: Record<string, unknown> = {};
    if (name.trim() !== c.name) body.name = name.trim();
    if (replacing) body.credentials = Object.fromEntries(fields.map(([field]) => [field, credentials[field] ?? '']));
    if (removeSecret) body.webhook_secret = null;
    else if (webhookSecret) body.webhook_secret = webhookSecret;
    props.saved(await call<Connector>('PATCH', `/merchant/connectors/${c.id}`, body));
  });
  return (
    <form onSubmit={submit} class="narrow" aria-label="Edit the connector">
      <Field label="Name" hint="Shown in routing and in the connector list; up to 100 characters.">
        {(a) => <input {...a} required maxLength={100} value={name} onInput={(e) => setName(inputValue(e))} />}
      </Field>
      <fieldset>
        <legend>Replace the credentials (leave empty to keep them)</legend>
        {providers.state === 'loading' && <p role="status">Loading the provider's fields…</p>}
        {providers.state === 'error' && <ErrorNote error={providers.error} retry={providers.reload} />}
        {fields.map(([field, schema]) => (
          <Field key={field} label={label(field)} hint={schema.description}>
            {(a) => {
              const common = {
                ...a,
                autoComplete: 'off',
                required: replacing,
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
      <Field
        label={c.has_webhook_secret ? 'New webhook signing secret (optional)' : 'Webhook signing secret'}
        hint={provider?.webhook_secret_format ?? 'From the provider’s dashboard, where you register the webhook URL.'}
      >
        {(a) => (
          <input
            {...a}
            type="password"
            autoComplete="off"
            disabled={removeSecret}
            value={webhookSecret}
            onInput={(e) => setWebhookSecret(inputValue(e))}
          />
        )}
      </Field>
      {c.has_webhook_secret && (
        <div class="field checkbox">
          <input
            id="remove-secret"
            type="checkbox"
            checked={removeSecret}
            onChange={(e) => setRemoveSecret(e.currentTarget.checked)}
          />
          <label for="remove-secret">Remove the webhook secret (settlement then relies on polling only)</label>
        </div>
      )}
      <ErrorNote error={error} />
      <div class="button-row">
        <button type="submit" disabled={busy}>
          {busy ? 'Saving…' : 'Save changes'}
        </button>
        <button type="button" class="secondary" disabled={busy} onClick={props.cancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

type Asked = 'deactivate' | 'activate' | 'delete';

const ASK_TEXT: Record<Asked, string> = {
  deactivate:
    'Deactivate this connector? Routing skips it from the next charge on, and the checkout stops offering what only it served.',
  activate: 'Activate this connector? Routing uses it again wherever a routing profile names it.',
  delete:
    'Delete this connector for good? Its credentials are erased. A connector that routing still names cannot be deleted: remove it from routing or deactivate it instead.',
};
const ASK_BUTTON: Record<Asked, string> = {
  deactivate: 'Deactivate',
  activate: 'Activate',
  delete: 'Delete the connector',
};

/** Edit, deactivate or activate, delete: each change asks first (owners and admins only). */
function ManageConnector(props: { connector: Connector; changed: (c: Connector, message: string) => void }) {
  const c = props.connector;
  const [editing, setEditing] = useState(false);
  const [asked, setAsked] = useState<Asked | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  if (!canManageMerchant()) {
    return <p class="hint">Only an owner or admin can edit, deactivate or delete a connector.</p>;
  }
  const confirm = () => {
    if (!asked) return;
    setBusy(true);
    setError(null);
    const run =
      asked === 'delete'
        ? call('DELETE', `/merchant/connectors/${c.id}`).then(() =>
            navigate(`/connectors?deleted=${encodeURIComponent(c.name)}`),
          )
        : call<Connector>('PATCH', `/merchant/connectors/${c.id}`, { is_active: asked === 'activate' }).then(
            (updated) => props.changed(updated, updated.is_active ? 'Connector activated.' : 'Connector deactivated.'),
          );
    run.then(
      () => (setBusy(false), setAsked(null)),
      (failure: unknown) => (setBusy(false), setAsked(null), setError(failure)),
    );
  };
  if (editing) {
    return (
      <EditConnector
        connector={c}
        cancel={() => setEditing(false)}
        saved={(updated) => (setEditing(false), props.changed(updated, 'Changes saved.'))}
      />
    );
  }
  return (
    <>
      <div class="button-row">
        <button type="button" class="secondary" onClick={() => (setAsked(null), setEditing(true))}>
          Edit
        </button>
        <button type="button" class="secondary" onClick={() => setAsked(c.is_active ? 'deactivate' : 'activate')}>
          {c.is_active ? 'Deactivate' : 'Activate'}
        </button>
        <button type="button" class="secondary" onClick={() => setAsked('delete')}>
          Delete
        </button>
      </div>
      {asked && (
        <div class="confirm" role="group" aria-label="Confirm">
          <p>{ASK_TEXT[asked]}</p>
          <div class="button-row">
            <button type="button" class="small" disabled={busy} onClick={confirm}>
              {busy ? 'Working…' : ASK_BUTTON[asked]}
            </button>
            <button type="button" class="secondary small" disabled={busy} onClick={() => setAsked(null)}>
              Keep as is
            </button>
          </div>
        </div>
      )}
      <ErrorNote error={error} />
    </>
  );
}

/** The credential test's verdict: accepted is a success; refused is an error that says what to do next. */
function CheckResult(props: { check: CredentialCheck }) {
  const { check } = props;
  if (check.ok) {
    return <Notice tone="success">The provider accepted the credentials ({when(check.checked_at)}).</Notice>;
  }
  return (
    <div class="notice error" role="alert">
      <p>
        <strong>Credential test failed</strong> ({when(check.checked_at)}): {check.provider_message}
      </p>
      <p>Charges routed here will fail until the credentials are fixed: edit them, or deactivate the connector.</p>
    </div>
  );
}

export function ConnectorDetail(props: { id: string }) {
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
          ['Provider', c.provider_slug],
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
