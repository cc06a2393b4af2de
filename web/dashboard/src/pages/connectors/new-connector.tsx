/** Add a connector: a form built from the provider catalog's credential JSON Schema. */
import type { TargetedEvent } from 'preact';
import { useState } from 'preact/hooks';
import { call, type Page } from '../../api';
import { label } from '../../format';
import { navigate } from '../../router';
import { ErrorNote, Field, PageHeader, inputValue, useLoad, useSubmit } from '../../ui';
import { type Provider, credentialFields, type Connector, SECRET_NAMES } from './model';

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
