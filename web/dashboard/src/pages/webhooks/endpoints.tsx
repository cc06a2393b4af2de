/** The merchant's webhook endpoints: add, edit, switch off or on, rotate the signing secret (shown once). */
import { useState } from 'preact/hooks';
import { call, type Answer, type Page } from '../../api';
import { when } from '../../format';
import { DataTable } from '../../list';
import { Chip, ErrorNote, Field, Notice, inputValue, useSubmit, type Loaded } from '../../ui';
import { type EventType, type WebhookConfig, canManage } from './model';

/** Every event, or the picked ones: what an endpoint is sent. */
function EventsField(props: { types: EventType[]; value: string[] | null; set: (value: string[] | null) => void }) {
  const all = props.value === null;
  const toggle = (type: string, on: boolean) => {
    const current = props.value ?? [];
    props.set(on ? [...current, type] : current.filter((t) => t !== type));
  };
  return (
    <fieldset>
      <legend>Events</legend>
      <div class="field checkbox">
        <input
          id="events-all"
          type="checkbox"
          checked={all}
          onChange={(e) => props.set(e.currentTarget.checked ? null : [])}
        />
        <label for="events-all">Every event, including ones added later</label>
      </div>
      {!all && (
        <div class="event-choices">
          {props.types.map((t) => (
            <div class="field checkbox" key={t.type}>
              <input
                id={`event-${t.type}`}
                type="checkbox"
                checked={props.value!.includes(t.type)}
                onChange={(e) => toggle(t.type, e.currentTarget.checked)}
              />
              <label for={`event-${t.type}`} title={t.description}>
                {t.type}
              </label>
            </div>
          ))}
        </div>
      )}
    </fieldset>
  );
}

/** The add and edit form of an endpoint. */
function EndpointForm(props: {
  types: EventType[];
  config?: WebhookConfig;
  save: (body: { url: string; description: string | null; event_filter: string[] | null }) => Promise<void>;
  cancel?: () => void;
}) {
  const [url, setUrl] = useState(props.config?.url ?? '');
  const [description, setDescription] = useState(props.config?.description ?? '');
  const [events, setEvents] = useState<string[] | null>(props.config?.event_filter ?? null);
  const { busy, error, submit, setError } = useSubmit(async () => {
    if (events !== null && events.length === 0) {
      setError(new Error('Pick at least one event, or send every event.'));
      return;
    }
    await props.save({ url, description: description.trim() || null, event_filter: events });
  });
  const title = props.config ? `Edit ${props.config.url}` : 'Add an endpoint';
  return (
    <form class="inline-form endpoint-form" onSubmit={submit} aria-label={title}>
      {!props.config && <h3>Add an endpoint</h3>}
      <Field label="Endpoint URL" hint="HTTPS; events are POSTed here, signed with the endpoint's secret.">
        {(a) => (
          <input {...a} type="url" required value={url} placeholder="https://" onInput={(e) => setUrl(inputValue(e))} />
        )}
      </Field>
      <Field label="Description (optional)">
        {(a) => <input {...a} maxLength={255} value={description} onInput={(e) => setDescription(inputValue(e))} />}
      </Field>
      <EventsField types={props.types} value={events} set={setEvents} />
      <ErrorNote error={error} />
      <div class="button-row">
        <button type="submit" disabled={busy}>
          {busy ? 'Saving…' : props.config ? 'Save changes' : 'Add endpoint'}
        </button>
        {props.cancel && (
          <button type="button" class="secondary" onClick={props.cancel}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}

/** A signing secret, shown once: after create and rotate only (the API never returns it again). */
function SecretOnce(props: { url: string; secret: string }) {
  return (
    <Notice tone="success">
      <p>
        Signing secret of {props.url}. Copy it now: it is not shown again.
        <br />
        <code data-testid="signing-secret">{props.secret}</code>
      </p>
    </Notice>
  );
}

type Asked = { kind: 'toggle' | 'rotate'; config: WebhookConfig };

export function Endpoints(props: { configs: Loaded<Page<WebhookConfig>>; types: EventType[] }) {
  const manage = canManage();
  const [editing, setEditing] = useState<string | null>(null);
  const [adding, setAdding] = useState(false);
  const [secret, setSecret] = useState<{ url: string; secret: string } | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const [asked, setAsked] = useState<Asked | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const { configs } = props;
  const done = (text: string | null) => {
    setMessage(text);
    configs.reload();
  };
  const confirm = () => {
    if (!asked) return;
    const { config } = asked;
    setBusy(true);
    setError(null);
    const run =
      asked.kind === 'toggle'
        ? call('PATCH', `/merchant/webhook-configs/${config.id}`, { is_active: !config.is_active }).then(() =>
            done(config.is_active ? `${config.url} is disabled.` : `${config.url} is enabled again.`),
          )
        : call<Answer<'postMerchantWebhookConfigsWebhookIdRotateSecret'>>(
            'POST',
            `/merchant/webhook-configs/${config.id}/rotate-secret`,
          ).then((rotated) => {
            setSecret({ url: config.url, secret: rotated.secret });
            done('The secret is rotated; the previous one keeps signing alongside for one hour.');
          });
    run.then(
      () => {
        setBusy(false);
        setAsked(null);
      },
      (failure: unknown) => {
        setBusy(false);
        setAsked(null);
        setError(failure);
      },
    );
  };
  return (
    <section aria-labelledby="endpoints">
      <h2 id="endpoints">Endpoints</h2>
      {message && <Notice tone="success">{message}</Notice>}
      {secret && <SecretOnce {...secret} />}
      <ErrorNote error={error} />
      <DataTable
        loaded={configs}
        what="endpoints"
        caption="Webhook endpoints"
        head={['URL', 'Status', 'Events', 'Last sent']}
        empty={<p>No webhook endpoint yet.{manage ? ' Add one below.' : ' An owner or admin can add one.'}</p>}
        row={(c) => (
          <tr key={c.id} data-endpoint={c.url}>
            <td class="break">
              {c.url}
              {c.description && <span class="meta"> · {c.description}</span>}
              {manage && editing !== c.id && (
                <div class="button-row">
                  <button type="button" class="secondary small" onClick={() => setEditing(c.id)}>
                    Edit
                  </button>
                  <button type="button" class="secondary small" onClick={() => setAsked({ kind: 'toggle', config: c })}>
                    {c.is_active ? 'Disable' : 'Enable'}
                  </button>
                  <button type="button" class="secondary small" onClick={() => setAsked({ kind: 'rotate', config: c })}>
                    Rotate secret
                  </button>
                </div>
              )}
              {asked?.config.id === c.id && (
                <div class="confirm" role="group" aria-label="Confirm">
                  <p>
                    {asked.kind === 'rotate'
                      ? 'Replace the signing secret? Update your receiver within one hour: the old secret stops signing then.'
                      : c.is_active
                        ? 'Disable this endpoint? No events are sent to it until it is enabled again.'
                        : 'Enable this endpoint? New events are sent to it again.'}
                  </p>
                  <div class="button-row">
                    <button type="button" class="small" disabled={busy} onClick={confirm}>
                      {busy
                        ? 'Working…'
                        : asked.kind === 'rotate'
                          ? 'Rotate secret'
                          : c.is_active
                            ? 'Disable'
                            : 'Enable'}
                    </button>
                    <button type="button" class="secondary small" disabled={busy} onClick={() => setAsked(null)}>
                      Keep as is
                    </button>
                  </div>
                </div>
              )}
              {editing === c.id && (
                <EndpointForm
                  types={props.types}
                  config={c}
                  cancel={() => setEditing(null)}
                  save={async (body) => {
                    await call('PATCH', `/merchant/webhook-configs/${c.id}`, body);
                    setEditing(null);
                    done(`${body.url} is saved.`);
                  }}
                />
              )}
            </td>
            <td>
              <Chip status={c.is_active} text={c.is_active ? 'Active' : 'Disabled'} />
            </td>
            <td>{c.event_filter ? c.event_filter.join(', ') : 'All events'}</td>
            <td>{when(c.last_triggered_at)}</td>
          </tr>
        )}
      />
      {manage &&
        (adding ? (
          <EndpointForm
            types={props.types}
            cancel={() => setAdding(false)}
            save={async (body) => {
              const created = await call<Answer<'postMerchantWebhookConfigs'>>(
                'POST',
                '/merchant/webhook-configs',
                body,
              );
              setAdding(false);
              setSecret({ url: created.url, secret: created.secret });
              done(null);
            }}
          />
        ) : (
          <div class="button-row">
            <button type="button" onClick={() => setAdding(true)}>
              Add an endpoint
            </button>
          </div>
        ))}
    </section>
  );
}
