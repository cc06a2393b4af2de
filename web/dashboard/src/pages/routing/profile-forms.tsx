/** Create a routing profile, and change one's settings (active, name, default connector). */
import { useState } from 'preact/hooks';
import { call } from '../../api';
import { useProviderName } from '../../providers';
import { navigate } from '../../router';
import { ErrorNote, Field, Link, inputValue, useSubmit } from '../../ui';
import { type ConnectorOption, type Profile, METHODS, methodName, type TreeContext } from './model';

export function NewProfile(props: { connectors: ConnectorOption[] }) {
  const [name, setName] = useState('');
  const [method, setMethod] = useState('*');
  const [connector, setConnector] = useState(props.connectors[0]?.id ?? '');
  const [active, setActive] = useState(true);
  const { busy, error, submit } = useSubmit(async () => {
    const created = await call<Profile>('POST', '/merchant/routing-profiles', {
      name: name.trim(),
      payment_method: method,
      default_merchant_connector_id: connector,
      is_active: active,
    });
    navigate(`/routing/${created.id}`);
  });
  if (props.connectors.length === 0) {
    return (
      <p>
        Add a <Link to="/connectors/new">connector</Link> first: every profile ends in a default connector.
      </p>
    );
  }
  return (
    <section aria-labelledby="new-profile">
      <h2 id="new-profile">New routing profile</h2>
      <form onSubmit={submit} class="narrow">
        <Field label="Profile name">
          {(a) => <input {...a} required maxLength={100} value={name} onInput={(e) => setName(inputValue(e))} />}
        </Field>
        <Field label="Payment method it routes">
          {(a) => (
            <select {...a} value={method} onChange={(e) => setMethod(inputValue(e))}>
              {METHODS.map((m) => (
                <option key={m} value={m}>
                  {methodName(m)}
                </option>
              ))}
            </select>
          )}
        </Field>
        <ConnectorSelect
          label="Default connector (tried last)"
          connectors={props.connectors}
          value={connector}
          set={setConnector}
        />
        <div class="field checkbox">
          <input
            id="new-active"
            type="checkbox"
            checked={active}
            onChange={(e) => setActive(e.currentTarget.checked)}
          />
          <label for="new-active">Active (routes charges as soon as it is created)</label>
        </div>
        <ErrorNote error={error} />
        <button type="submit" disabled={busy}>
          {busy ? 'Creating…' : 'Create the profile'}
        </button>
      </form>
    </section>
  );
}

function ConnectorSelect(props: {
  label: string;
  connectors: ConnectorOption[];
  value: string;
  set: (id: string) => void;
}) {
  const providerName = useProviderName();
  return (
    <Field label={props.label}>
      {(a) => (
        <select {...a} value={props.value} onChange={(e) => props.set(inputValue(e))}>
          {props.connectors.map((c) => (
            <option key={c.id} value={c.id}>
              {c.name} ({providerName(c.provider_slug)}
              {c.is_active ? '' : ', inactive'})
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}

/** Activate or deactivate (replacing the active profile of the method when asked), rename, change the default connector. */
export function ProfileSettings(props: { profile: Profile; tree: TreeContext }) {
  const p = props.profile;
  const [name, setName] = useState(p.name);
  const [connector, setConnector] = useState(p.default_merchant_connector_id);
  const [replace, setReplace] = useState(false);
  const save = useSubmit(async () => {
    if (name.trim() !== p.name) await call('PATCH', props.tree.base, { name: name.trim() });
    if (connector !== p.default_merchant_connector_id)
      await call('PATCH', `${props.tree.base}/default-connector`, { merchant_connector_id: connector });
    props.tree.changed('Profile saved.');
  });
  const toggle = useSubmit(async () => {
    await call('PATCH', props.tree.base, {
      is_active: !p.is_active,
      ...(!p.is_active && replace ? { deactivate_conflicting: true } : {}),
    });
    props.tree.changed(p.is_active ? 'Profile deactivated: it routes nothing now.' : 'Profile activated.');
  });
  return (
    <section aria-labelledby="settings">
      <h2 id="settings">Profile</h2>
      <form onSubmit={save.submit} class="narrow">
        <Field label="Profile name">
          {(a) => <input {...a} required maxLength={100} value={name} onInput={(e) => setName(inputValue(e))} />}
        </Field>
        <ConnectorSelect
          label="Default connector (tried last)"
          connectors={props.tree.connectors}
          value={connector}
          set={setConnector}
        />
        <ErrorNote error={save.error} />
        <button type="submit" disabled={save.busy}>
          {save.busy ? 'Saving…' : 'Save profile'}
        </button>
      </form>
      <form onSubmit={toggle.submit} class="narrow">
        {!p.is_active && (
          <div class="field checkbox">
            <input
              id="replace-active"
              type="checkbox"
              checked={replace}
              onChange={(e) => setReplace(e.currentTarget.checked)}
            />
            <label for="replace-active">Deactivate the profile now active for {methodName(p.payment_method)}</label>
          </div>
        )}
        <ErrorNote error={toggle.error} />
        <button type="submit" class="secondary" disabled={toggle.busy}>
          {p.is_active ? 'Deactivate the profile' : 'Activate the profile'}
        </button>
      </form>
    </section>
  );
}
