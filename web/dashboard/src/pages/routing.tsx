/**
 * Routing: the merchant's routing profiles, and for one profile its tree — the connectors a charge
 * tries and in which order — edited without knowing the JSON: add, remove and reorder connectors and conditions of
 * any branch, switch a node off, set the default connector that ends every plan. A condition's value is typed as
 * JSON with its error shown inline. "Simulate a charge" asks the API (…/simulate) which connectors a charge with a
 * given method, brand, currency, amount and country would try, in order, and which it skips and why.
 */
import { useState } from 'preact/hooks';
import { call, type Answer, type Item, type Page } from '../api';
import { label, money, toMinor } from '../format';
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
  canManageMerchant,
  inputValue,
  useLoad,
  useSubmit,
} from '../ui';

type Profile = Item<'getMerchantRoutingProfiles'>;

type RoutingNode = Item<'getMerchantRoutingProfilesProfileIdNodes'>;

type ConnectorOption = Item<'getMerchantConnectors'>;

const METHODS = ['*', 'credit_card', 'debit_card', 'pix', 'boleto', 'wallet'];
const methodName = (method: string) => (method === '*' ? 'Every method (*)' : label(method));
const FIELDS = ['amount', 'currency', 'card_brand', 'bin_country', 'installments', 'is_recurring', 'math/random'];
const OPERATORS: Record<string, string> = {
  eq: 'is',
  neq: 'is not',
  gt: '>',
  gte: '≥',
  lt: '<',
  lte: '≤',
  in: 'is one of',
  not_in: 'is none of',
  regex: 'matches the pattern',
};
const FIELD_HINTS: Record<string, string> = {
  amount: 'A number in minor units: 10000 is R$100.00.',
  currency: 'A code in quotes, "BRL"; for "is one of": ["BRL", "USD"].',
  card_brand: 'Lowercase in quotes, "visa"; for "is one of": ["visa", "mastercard"].',
  bin_country: 'The card’s country, "BR"; for "is one of": ["BR", "AR"].',
  installments: 'A number, 1 to 120.',
  is_recurring: 'true or false.',
  'math/random': 'A share from 0 to 1: "< 0.1" sends 10% of charges to the then-branch.',
};

const listKey = (parent: string | null, branch: string | null) => (parent ? `${parent}:${branch}` : 'root');

/** The flat node list as sibling lists by (parent, branch), each by position. */
function siblingsIndex(nodes: RoutingNode[]): Map<string, RoutingNode[]> {
  const index = new Map<string, RoutingNode[]>();
  for (const node of nodes) {
    const key = listKey(node.parent_node_id, node.branch);
    index.set(key, [...(index.get(key) ?? []), node]);
  }
  for (const list of index.values()) list.sort((a, b) => a.position - b.position);
  return index;
}

/**
 * The connectors in the order a charge falls back through them: active actions depth-first, then the default —
 * each connector once, as the engine plans it (a default already listed is not tried twice).
 */
function fallbackOrder(index: Map<string, RoutingNode[]>, defaultId: string, defaultName: string): string[] {
  const order = new Map<string, string>();
  const visit = (key: string) => {
    for (const node of index.get(key) ?? []) {
      if (!node.is_active) continue;
      if (node.node_type === 'action' && node.merchant_connector_id && !order.has(node.merchant_connector_id))
        order.set(node.merchant_connector_id, node.connector_name ?? node.merchant_connector_id);
      if (node.node_type === 'condition') {
        visit(listKey(node.id, 'then'));
        visit(listKey(node.id, 'else'));
      }
    }
  };
  visit('root');
  const listed = order.get(defaultId);
  if (listed) order.set(defaultId, `${listed} (also the default)`);
  else order.set(defaultId, `${defaultName} (default)`);
  return [...order.values()];
}

const showValue = (value: unknown) => JSON.stringify(value);

export function RoutingProfiles() {
  const list = usePagedList<Profile>('/merchant/routing-profiles', {}, 50);
  const connectors = useLoad(() => call<Page<ConnectorOption>>('GET', '/merchant/connectors?limit=100'), []);
  const names = new Map(connectors.state === 'ready' ? connectors.data.data.map((c) => [c.id, c.name]) : []);
  return (
    <>
      <PageHeader title="Routing" />
      <p class="hint">
        A routing profile decides which connectors a charge tries, per payment method (one active profile each; “every
        method” catches the rest). The hosted checkout offers a method only when its profile reaches a connector that
        takes it.
      </p>
      <DataTable
        loaded={list.loaded}
        onPage={list.onPage}
        what="routing profiles"
        caption="Routing profiles"
        head={['Name', 'Payment method', 'Status', 'Default connector', 'Version']}
        empty={<p>No routing profile yet: charges have no route until you add one.</p>}
        row={(p) => (
          <tr key={p.id}>
            <td>
              <Link to={`/routing/${p.id}`}>{p.name}</Link>
            </td>
            <td>{methodName(p.payment_method)}</td>
            <td>
              <Chip status={p.is_active} text={p.is_active ? 'Active' : 'Inactive'} />
            </td>
            <td>{names.get(p.default_merchant_connector_id) ?? p.default_merchant_connector_id}</td>
            <td>{p.version}</td>
          </tr>
        )}
      />
      {canManageMerchant() && connectors.state === 'ready' && <NewProfile connectors={connectors.data.data} />}
    </>
  );
}

function NewProfile(props: { connectors: ConnectorOption[] }) {
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
  return (
    <Field label={props.label}>
      {(a) => (
        <select {...a} value={props.value} onChange={(e) => props.set(inputValue(e))}>
          {props.connectors.map((c) => (
            <option key={c.id} value={c.id}>
              {c.name} ({c.provider_slug}
              {c.is_active ? '' : ', inactive'})
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}

/** What every tree edit needs: the profile's base path, the connectors to pick from, and a reload after a change. */
interface TreeContext {
  base: string;
  connectors: ConnectorOption[];
  index: Map<string, RoutingNode[]>;
  manage: boolean;
  changed: (message: string) => void;
  failed: (error: unknown) => void;
}

export function RoutingProfileDetail(props: { id: string }) {
  const base = `/merchant/routing-profiles/${props.id}`;
  const profile = useLoad(() => call<Profile>('GET', base), [base]);
  const nodes = useLoad(() => call<Page<RoutingNode>>('GET', `${base}/nodes`), [base]);
  const connectors = useLoad(() => call<Page<ConnectorOption>>('GET', '/merchant/connectors?limit=100'), []);
  const [message, setMessage] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const back = { to: '/routing', text: 'Routing' };
  const failed = [profile, nodes, connectors].find((l) => l.state === 'error');
  if (failed?.state === 'error')
    return (
      <>
        <PageHeader title="Routing profile" back={back} />
        <ErrorNote error={failed.error} retry={failed.reload} />
      </>
    );
  if (profile.state !== 'ready' || nodes.state !== 'ready' || connectors.state !== 'ready')
    return <p role="status">Loading the routing profile…</p>;
  const p = profile.data;
  const options = connectors.data.data;
  const defaultName =
    options.find((c) => c.id === p.default_merchant_connector_id)?.name ?? p.default_merchant_connector_id;
  const index = siblingsIndex(nodes.data.data);
  const tree: TreeContext = {
    base,
    connectors: options,
    index,
    manage: canManageMerchant(),
    changed: (text) => {
      setError(null);
      setMessage(text);
      nodes.reload();
      profile.reload();
    },
    failed: (failure) => {
      setMessage(null);
      setError(failure);
    },
  };
  return (
    <>
      <PageHeader title={p.name} back={back}>
        <Chip status={p.is_active} text={p.is_active ? 'Active' : 'Inactive'} />
      </PageHeader>
      <Facts
        items={[
          ['Payment method', methodName(p.payment_method)],
          ['Default connector', defaultName],
          ['Order', p.optimize === 'approval_rate' ? 'By recent approval rate' : 'As listed below'],
          ['Version', String(p.version)],
        ]}
      />
      {!tree.manage && <p class="hint">You can read and simulate; only an owner or admin can change routing.</p>}
      {tree.manage && <ProfileSettings profile={p} tree={tree} />}
      <section aria-labelledby="tree">
        <h2 id="tree">Routing tree</h2>
        <p class="hint">
          A charge goes to the first connector the rules reach (a condition sends it into “then” or “otherwise”). If
          that connector declines in a way worth retrying, the charge falls back to every other active connector in the
          order below, and last to the default connector. Connectors that cannot take the charge’s method, currency or
          brand are skipped.
        </p>
        <div aria-live="polite">
          {message && <Notice tone="success">{message}</Notice>}
          <ErrorNote error={error} />
        </div>
        <SiblingList tree={tree} parent={null} branch={null} />
        <h3>Fallback order</h3>
        <ol class="plan" aria-label="Fallback order">
          {fallbackOrder(index, p.default_merchant_connector_id, defaultName).map((name) => (
            <li key={name}>{name}</li>
          ))}
        </ol>
      </section>
      <Simulate base={base} profile={p} connectors={options} />
    </>
  );
}

/** Activate or deactivate (replacing the active profile of the method when asked), rename, change the default connector. */
function ProfileSettings(props: { profile: Profile; tree: TreeContext }) {
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

/** One sibling list (the root, or a condition's then/else branch) with its nodes and the add controls. */
function SiblingList(props: { tree: TreeContext; parent: RoutingNode | null; branch: 'then' | 'else' | null }) {
  const { tree, parent, branch } = props;
  const siblings = tree.index.get(listKey(parent?.id ?? null, branch)) ?? [];
  const where = parent ? `${branch === 'then' ? 'then' : 'otherwise'} of “${conditionText(parent)}”` : 'top level';
  return (
    <div class={parent ? 'tree-branch' : undefined}>
      {parent && <p class="meta">{branch === 'then' ? 'Then:' : 'Otherwise:'}</p>}
      {siblings.length === 0 && <p class="hint">No connector here.</p>}
      <ol class="tree-list" aria-label={`Routing nodes, ${where}`}>
        {siblings.map((node, at) => (
          <li key={node.id} data-node={node.id}>
            <NodeView tree={tree} node={node} siblings={siblings} at={at} />
          </li>
        ))}
      </ol>
      {tree.manage && <AddNode tree={tree} parent={parent} branch={branch} position={siblings.length} where={where} />}
    </div>
  );
}

const conditionText = (node: RoutingNode) =>
  `${label(node.condition_field)} ${OPERATORS[node.condition_operator ?? ''] ?? node.condition_operator} ${showValue(node.condition_value)}`;

function NodeView(props: { tree: TreeContext; node: RoutingNode; siblings: RoutingNode[]; at: number }) {
  const { tree, node, siblings, at } = props;
  const [editing, setEditing] = useState(false);
  const [busy, setBusy] = useState(false);
  const run = (work: Promise<unknown>, message: string) => {
    setBusy(true);
    work.then(
      () => (setBusy(false), tree.changed(message)),
      (failure: unknown) => (setBusy(false), tree.failed(failure)),
    );
  };
  const title =
    node.node_type === 'action' ? (node.connector_name ?? node.merchant_connector_id ?? '?') : conditionText(node);
  const move = (by: number) => {
    const ids = siblings.map((s) => s.id);
    [ids[at], ids[at + by]] = [ids[at + by], ids[at]];
    run(
      call('PATCH', `${tree.base}/nodes/reorder`, {
        parent_node_id: node.parent_node_id,
        branch: node.branch,
        ordered_node_ids: ids,
      }),
      `${title} moved ${by < 0 ? 'up' : 'down'}.`,
    );
  };
  return (
    <>
      <div class="tree-node-head">
        {node.node_type === 'action' ? (
          <span>
            <strong>{title}</strong>
            {node.require_3ds && node.require_3ds !== 'never' && (
              <span class="meta"> · 3-D Secure {label(node.require_3ds)}</span>
            )}
          </span>
        ) : (
          <span>
            <strong>If</strong> {title}
          </span>
        )}
        {!node.is_active && <Chip status="expired" text="Switched off" />}
        {tree.manage && (
          <div class="button-row">
            <button
              type="button"
              class="secondary small"
              disabled={busy || at === 0}
              aria-label={`Move ${title} up`}
              onClick={() => move(-1)}
            >
              ↑
            </button>
            <button
              type="button"
              class="secondary small"
              disabled={busy || at === siblings.length - 1}
              aria-label={`Move ${title} down`}
              onClick={() => move(1)}
            >
              ↓
            </button>
            {node.node_type === 'condition' && (
              <button type="button" class="secondary small" disabled={busy} onClick={() => setEditing(!editing)}>
                {editing ? 'Close' : 'Edit condition'}
              </button>
            )}
            <button
              type="button"
              class="secondary small"
              disabled={busy}
              onClick={() =>
                run(
                  call('PATCH', `${tree.base}/nodes/${node.id}`, { is_active: !node.is_active }),
                  `${title} switched ${node.is_active ? 'off' : 'on'}.`,
                )
              }
            >
              {node.is_active ? 'Switch off' : 'Switch on'}
            </button>
            <button
              type="button"
              class="secondary small"
              disabled={busy}
              aria-label={`Remove ${title}`}
              onClick={() => run(call('DELETE', `${tree.base}/nodes/${node.id}`), `${title} removed.`)}
            >
              Remove
            </button>
          </div>
        )}
      </div>
      {editing && (
        <ConditionForm
          initial={node}
          submitText="Save condition"
          save={(condition) =>
            call('PATCH', `${tree.base}/nodes/${node.id}`, condition).then(() => {
              setEditing(false);
              tree.changed('Condition saved.');
            })
          }
        />
      )}
      {node.node_type === 'condition' && (
        <>
          <SiblingList tree={tree} parent={node} branch="then" />
          <SiblingList tree={tree} parent={node} branch="else" />
        </>
      )}
    </>
  );
}

interface Condition {
  condition_field: string;
  condition_operator: string;
  condition_value: unknown;
}

/** Field and operator by name; the value as JSON, checked as it is typed (the API's own check shows on save). */
function ConditionForm(props: {
  initial?: RoutingNode;
  submitText: string;
  save: (condition: Condition) => Promise<void>;
}) {
  const [field, setField] = useState<string>(props.initial?.condition_field ?? 'amount');
  const [operator, setOperator] = useState<string>(props.initial?.condition_operator ?? 'gte');
  const [text, setText] = useState(props.initial ? showValue(props.initial.condition_value) : '10000');
  let parsed: { ok: true; value: unknown } | { ok: false; message: string };
  try {
    parsed = { ok: true, value: JSON.parse(text) };
  } catch (failure) {
    parsed = { ok: false, message: (failure as Error).message };
  }
  const { busy, error, submit } = useSubmit(async () => {
    if (!parsed.ok) return;
    await props.save({ condition_field: field, condition_operator: operator, condition_value: parsed.value });
  });
  return (
    <form onSubmit={submit} class="narrow" aria-label="Condition">
      <Field label="When the charge’s">
        {(a) => (
          <select {...a} value={field} onChange={(e) => setField(inputValue(e))}>
            {FIELDS.map((f) => (
              <option key={f} value={f}>
                {label(f)}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field label="Comparison">
        {(a) => (
          <select {...a} value={operator} onChange={(e) => setOperator(inputValue(e))}>
            {Object.entries(OPERATORS).map(([value, text]) => (
              <option key={value} value={value}>
                {text}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field label="Value (JSON)" hint={FIELD_HINTS[field]}>
        {(a) => (
          <textarea
            {...a}
            class="json"
            rows={2}
            aria-invalid={!parsed.ok}
            value={text}
            onInput={(e) => setText(inputValue(e))}
          />
        )}
      </Field>
      {!parsed.ok && (
        <p class="notice error" role="alert">
          Not valid JSON: {parsed.message}
        </p>
      )}
      <ErrorNote error={error} />
      <button type="submit" class="small" disabled={busy || !parsed.ok}>
        {busy ? 'Saving…' : props.submitText}
      </button>
    </form>
  );
}

/** Add a connector (the usual case) or a condition at the end of one sibling list. */
function AddNode(props: {
  tree: TreeContext;
  parent: RoutingNode | null;
  branch: 'then' | 'else' | null;
  position: number;
  where: string;
}) {
  const { tree } = props;
  const [connector, setConnector] = useState(tree.connectors[0]?.id ?? '');
  const [conditionOpen, setConditionOpen] = useState(false);
  const place = { position: props.position, parent_node_id: props.parent?.id ?? null, branch: props.branch };
  const add = useSubmit(async () => {
    await call('POST', `${tree.base}/nodes`, { node_type: 'action', merchant_connector_id: connector, ...place });
    tree.changed(`${tree.connectors.find((c) => c.id === connector)?.name ?? 'Connector'} added.`);
  });
  return (
    <div class="add-node">
      <form onSubmit={add.submit} class="button-row" aria-label={`Add a connector, ${props.where}`}>
        <label class="visually-hidden" for={`add-${props.parent?.id ?? 'root'}-${props.branch ?? ''}`}>
          Connector to add, {props.where}
        </label>
        <select
          id={`add-${props.parent?.id ?? 'root'}-${props.branch ?? ''}`}
          value={connector}
          onChange={(e) => setConnector(inputValue(e))}
        >
          {tree.connectors.map((c) => (
            <option key={c.id} value={c.id}>
              {c.name} ({c.provider_slug})
            </option>
          ))}
        </select>
        <button type="submit" class="secondary small" disabled={add.busy || !connector}>
          Add connector
        </button>
        <button type="button" class="secondary small" onClick={() => setConditionOpen(!conditionOpen)}>
          {conditionOpen ? 'Close' : 'Add condition'}
        </button>
      </form>
      <ErrorNote error={add.error} />
      {conditionOpen && (
        <ConditionForm
          submitText="Add condition"
          save={(condition) =>
            call('POST', `${tree.base}/nodes`, { node_type: 'condition', ...condition, ...place }).then(() => {
              setConditionOpen(false);
              tree.changed('Condition added: add connectors to its branches.');
            })
          }
        />
      )}
    </div>
  );
}

type Simulation = Answer<'postMerchantRoutingProfilesProfileIdSimulate'>;

const REASONS: Record<string, string> = {
  matched: 'the rules chose it',
  fallback: 'fallback',
  default: 'default connector',
  unknown_connector: 'the connector no longer exists',
  inactive: 'the connector is inactive',
  circuit_open: 'its circuit is open',
  unsupported_payment_method: 'it does not take this method',
  unsupported_currency: 'it does not take this currency',
  unsupported_card_brand: 'it does not take this card brand',
};

/** A connector skipped as the rules' choice and again as the default is one line, not two. */
const uniqueSkips = (skipped: Simulation['skipped']) =>
  skipped.filter(
    (skip, at) =>
      skipped.findIndex((s) => s.merchant_connector_id === skip.merchant_connector_id && s.reason === skip.reason) ===
      at,
  );

const CHARGE_METHODS = ['credit_card', 'debit_card', 'pix', 'boleto', 'wallet'];
const BRANDS = ['visa', 'mastercard', 'amex', 'elo', 'hipercard', 'discover', 'diners', 'jcb'];

/** The charge's plan from …/simulate; connectors are named from the page's connector list. */
function Simulate(props: { base: string; profile: Profile; connectors: ConnectorOption[] }) {
  const fixed = props.profile.payment_method !== '*';
  const [method, setMethod] = useState<string>(fixed ? props.profile.payment_method : 'credit_card');
  const [brand, setBrand] = useState('visa');
  const [currency, setCurrency] = useState('BRL');
  const [amount, setAmount] = useState('100.00');
  const [country, setCountry] = useState('');
  const [result, setResult] = useState<Simulation | null>(null);
  const card = method === 'credit_card' || method === 'debit_card';
  const minor = /^[A-Z]{3}$/.test(currency) ? toMinor(amount, currency) : NaN;
  const { busy, error, submit } = useSubmit(async () => {
    setResult(null);
    setResult(
      await call<Simulation>('POST', `${props.base}/simulate`, {
        payment_method: method,
        currency,
        amount: minor,
        ...(card ? { card_brand: brand } : {}),
        ...(card && country ? { bin_country: country.toUpperCase() } : {}),
        random_draw: 0.5,
      }),
    );
  });
  const nameOf = (id: string) => props.connectors.find((c) => c.id === id)?.name ?? id;
  return (
    <section aria-labelledby="simulate">
      <h2 id="simulate">Simulate a charge</h2>
      <p class="hint">Which connectors would this charge try, in order? Nothing is charged.</p>
      <form onSubmit={submit} class="narrow">
        <Field label="Payment method">
          {(a) => (
            <select {...a} value={method} disabled={fixed} onChange={(e) => setMethod(inputValue(e))}>
              {CHARGE_METHODS.map((m) => (
                <option key={m} value={m}>
                  {label(m)}
                </option>
              ))}
            </select>
          )}
        </Field>
        {card && (
          <Field label="Card brand">
            {(a) => (
              <select {...a} value={brand} onChange={(e) => setBrand(inputValue(e))}>
                {BRANDS.map((b) => (
                  <option key={b} value={b}>
                    {label(b)}
                  </option>
                ))}
              </select>
            )}
          </Field>
        )}
        <Field label="Currency" hint="Three letters, e.g. BRL or USD.">
          {(a) => (
            <input
              {...a}
              required
              pattern="[A-Za-z]{3}"
              maxLength={3}
              value={currency}
              onInput={(e) => setCurrency(inputValue(e).toUpperCase())}
            />
          )}
        </Field>
        <Field
          label="Amount"
          hint={
            Number.isFinite(minor) ? `${money(minor, currency)} (${minor} in minor units)` : 'A number, e.g. 100.00'
          }
        >
          {(a) => (
            <input {...a} required inputMode="decimal" value={amount} onInput={(e) => setAmount(inputValue(e))} />
          )}
        </Field>
        {card && (
          <Field label="Card country (optional)" hint="Two letters, e.g. BR.">
            {(a) => (
              <input
                {...a}
                pattern="[A-Za-z]{2}"
                maxLength={2}
                value={country}
                onInput={(e) => setCountry(inputValue(e))}
              />
            )}
          </Field>
        )}
        <ErrorNote error={error} />
        <button type="submit" disabled={busy || !Number.isFinite(minor)}>
          {busy ? 'Simulating…' : 'Simulate'}
        </button>
      </form>
      {result && (
        <div aria-live="polite" data-testid="simulation">
          {result.plan.length === 0 ? (
            <p class="notice error" role="alert">
              No connector can take this charge: it would fail without reaching a provider.
            </p>
          ) : (
            <>
              <h3>Tried in this order</h3>
              <ol class="plan" aria-label="Simulated plan">
                {result.plan.map((step) => (
                  <li key={step.merchant_connector_id}>
                    <strong>{step.connector_name ?? nameOf(step.merchant_connector_id)}</strong> ({step.provider_slug})
                    — {REASONS[step.reason] ?? step.reason}
                  </li>
                ))}
              </ol>
            </>
          )}
          {result.skipped.length > 0 && (
            <>
              <h3>Skipped</h3>
              <ul aria-label="Skipped connectors">
                {uniqueSkips(result.skipped).map((skip) => (
                  <li key={`${skip.merchant_connector_id}-${skip.reason}`}>
                    {nameOf(skip.merchant_connector_id)}: {REASONS[skip.reason] ?? skip.reason}
                  </li>
                ))}
              </ul>
            </>
          )}
        </div>
      )}
    </section>
  );
}
