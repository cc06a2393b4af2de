/**
 * API keys (GET/POST /merchant/api-keys): the list shows only a key's prefix and last four, its scopes ("Full access"
 * for every scope), when it was last used and who created it, by name. Owners and admins issue a key (shown once,
 * here, and never again; a secret key with full access or only the scopes chosen), roll
 * one (a new key with the same name, kind, scopes and expiry; the old one keeps working for the hours chosen) and
 * revoke one after confirming; viewers read. A public key issued here is remembered in this browser for payment
 * links (catalog.tsx): public keys are meant to be seen.
 */
import { useState } from 'preact/hooks';
import { call, type Answer, type Item } from '../api';
import { label, when } from '../format';
import { DataTable, usePagedList } from '../list';
import { useActorNames } from '../names';
import { rememberPublicKey } from './catalog/payment-link';
import { ScopeChoice, scopeText, type Scope } from './api-key-scopes';
import { canManageMerchant, Chip, ErrorNote, Field, inputValue, Notice, PageHeader, useSubmit } from '../ui';

type ApiKey = Item<'getMerchantApiKeys'>;
type IssuedKey = Answer<'postMerchantApiKeys'>;

/** The key itself, once: after "I have copied it" the page holds it no more. */
function ShownOnce(props: { issued: IssuedKey; done: () => void }) {
  return (
    <Notice tone="success">
      <p>{props.issued.name ?? 'The key'}: copy it now, it is shown only now and never again.</p>
      <p>
        <code class="break">{props.issued.key}</code>
      </p>
      <div class="button-row">
        <button type="button" class="small" onClick={() => void navigator.clipboard?.writeText(props.issued.key)}>
          Copy
        </button>
        <button type="button" class="secondary small" onClick={props.done}>
          I have copied it
        </button>
      </div>
    </Notice>
  );
}

function IssueForm(props: { issued: (key: IssuedKey) => void }) {
  const [name, setName] = useState('');
  const [kind, setKind] = useState<'secret' | 'public'>('secret');
  const [days, setDays] = useState('');
  const [scopes, setScopes] = useState<Scope[] | null>(null);
  const narrowed = kind === 'secret' && scopes !== null;
  const { busy, error, submit } = useSubmit(async () => {
    const body = {
      name,
      kind,
      ...(narrowed ? { scopes } : {}),
      ...(days ? { expires_in_hours: Number(days) * 24 } : {}),
    };
    const issued = await call<IssuedKey>('POST', '/merchant/api-keys', body);
    if (issued.kind === 'public') rememberPublicKey(issued.key);
    setName('');
    setDays('');
    setScopes(null);
    props.issued(issued);
  });
  return (
    <form class="card" aria-label="Issue a key" onSubmit={submit}>
      <h2>Issue a key</h2>
      <Field label="Name" hint="What uses it, e.g. “Order server”.">
        {(a) => <input {...a} required maxLength={100} value={name} onInput={(e) => setName(inputValue(e))} />}
      </Field>
      <Field label="Kind" hint="Secret keys stay on your server; public keys go in web pages (no scope).">
        {(a) => (
          <select {...a} value={kind} onChange={(e) => setKind(inputValue(e) as 'secret' | 'public')}>
            <option value="secret">Secret (sk_live_mer_…)</option>
            <option value="public">Public (pk_live_mer_…)</option>
          </select>
        )}
      </Field>
      {kind === 'secret' && <ScopeChoice chosen={scopes} set={setScopes} />}
      <Field label="Expires in (days)" hint="Empty: the key does not expire.">
        {(a) => <input {...a} type="number" min={1} max={366} value={days} onInput={(e) => setDays(inputValue(e))} />}
      </Field>
      <ErrorNote error={error} />
      {narrowed && scopes.length === 0 && <p class="hint">Choose at least one scope, or full access.</p>}
      <button type="submit" disabled={busy || (narrowed && scopes.length === 0)}>
        {busy ? 'Issuing…' : 'Issue key'}
      </button>
    </form>
  );
}

/** Roll or revoke one key, each after an inline confirmation. */
function KeyActions(props: { apiKey: ApiKey; issued: (key: IssuedKey) => void; changed: () => void }) {
  const { apiKey } = props;
  const [asked, setAsked] = useState<'roll' | 'revoke' | null>(null);
  const [hours, setHours] = useState('24');
  const name = apiKey.name ?? `${apiKey.prefix}…${apiKey.last_four}`;
  const roll = useSubmit(async () => {
    const issued = await call<IssuedKey>('POST', `/merchant/api-keys/${apiKey.id}/roll`, {
      expires_in_hours: Number(hours),
    });
    setAsked(null);
    props.issued(issued);
  });
  const revoke = useSubmit(async () => {
    await call('POST', `/merchant/api-keys/${apiKey.id}/revoke`);
    setAsked(null);
    props.changed();
  });
  if (apiKey.status === 'revoked') return null;
  return (
    <>
      <div class="button-row">
        <button type="button" class="secondary small" onClick={() => setAsked('roll')}>
          Roll
        </button>
        <button type="button" class="secondary small" onClick={() => setAsked('revoke')}>
          Revoke
        </button>
      </div>
      {asked === 'roll' && (
        <form class="confirm" aria-label={`Roll ${name}`} onSubmit={roll.submit}>
          <p>A new key replaces {name}, with the same scopes and expiry.</p>
          <Field label="The old key keeps working for (hours)" hint="0: refused at once; at most 720.">
            {(a) => (
              <input
                {...a}
                type="number"
                min={0}
                max={720}
                required
                value={hours}
                onInput={(e) => setHours(inputValue(e))}
              />
            )}
          </Field>
          <ErrorNote error={roll.error} />
          <div class="button-row">
            <button type="submit" class="small" disabled={roll.busy}>
              {roll.busy ? 'Working…' : 'Roll key'}
            </button>
            <button type="button" class="secondary small" onClick={() => setAsked(null)}>
              Keep as is
            </button>
          </div>
        </form>
      )}
      {asked === 'revoke' && (
        <form class="confirm" aria-label={`Revoke ${name}`} onSubmit={revoke.submit}>
          <p>Revoke {name}? Requests with it are refused at once; this cannot be undone.</p>
          <ErrorNote error={revoke.error} />
          <div class="button-row">
            <button type="submit" class="small" disabled={revoke.busy}>
              {revoke.busy ? 'Working…' : 'Revoke key'}
            </button>
            <button type="button" class="secondary small" onClick={() => setAsked(null)}>
              Keep it
            </button>
          </div>
        </form>
      )}
    </>
  );
}

export function ApiKeys() {
  const list = usePagedList<ApiKey>('/merchant/api-keys');
  const actorName = useActorNames();
  const [issued, setIssued] = useState<IssuedKey | null>(null);
  const manage = canManageMerchant();
  const shown = (key: IssuedKey) => {
    setIssued(key);
    list.loaded.reload();
  };
  return (
    <>
      <PageHeader title="API keys" />
      <p>
        Keys your servers and web pages call the API with. Only a key’s first characters and last four are kept in view;
        the key itself is shown once, when it is issued or rolled.
      </p>
      {!manage && (
        <Notice>Your role is viewer: you can read the keys; owners and admins issue, roll and revoke them.</Notice>
      )}
      {issued && <ShownOnce issued={issued} done={() => setIssued(null)} />}
      {manage && <IssueForm issued={shown} />}
      <DataTable
        loaded={list.loaded}
        onPage={list.onPage}
        what="API keys"
        caption="API keys"
        head={['Name', 'Key', 'Scopes', 'Status', 'Last used', 'Created', ...(manage ? ['Actions'] : [])]}
        empty={<p>No API keys yet.</p>}
        row={(apiKey) => (
          <tr key={apiKey.id} data-key={apiKey.id}>
            <td>{apiKey.name ?? '—'}</td>
            <td>
              <code>
                {apiKey.prefix}…{apiKey.last_four}
              </code>{' '}
              <span class="meta">{label(apiKey.kind)}</span>
            </td>
            <td class="break">{scopeText(apiKey.scopes)}</td>
            <td>
              <Chip status={apiKey.status === 'revoked' ? 'cancelled' : apiKey.status} text={label(apiKey.status)} />
              {apiKey.expires_at && <p class="meta">Expires {when(apiKey.expires_at)}</p>}
            </td>
            <td>{apiKey.last_used_at ? when(apiKey.last_used_at) : 'Never'}</td>
            <td>
              {when(apiKey.created_at)}
              <p class="meta">by {apiKey.created_by ? actorName(apiKey.created_by) : 'bootstrap'}</p>
            </td>
            {manage && (
              <td>
                <KeyActions apiKey={apiKey} issued={shown} changed={list.loaded.reload} />
              </td>
            )}
          </tr>
        )}
      />
    </>
  );
}
