/** Edit, deactivate, activate or delete a connector (each change asks first), and the credential test's verdict. */
import type { TargetedEvent } from 'preact';
import { useState } from 'preact/hooks';
import { call, type Answer, type Page } from '../../api';
import { label, when } from '../../format';
import { navigate } from '../../router';
import { ErrorNote, Field, Notice, canManageMerchant, inputValue, useLoad, useSubmit } from '../../ui';
import { type Connector, type Provider, credentialFields, SECRET_NAMES } from './model';

export type CredentialCheck = Answer<'postMerchantConnectorsConnectorIdTest'>;

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
export function ManageConnector(props: { connector: Connector; changed: (c: Connector, message: string) => void }) {
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
export function CheckResult(props: { check: CredentialCheck }) {
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
