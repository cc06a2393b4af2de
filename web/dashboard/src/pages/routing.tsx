/**
 * Routing: the merchant's routing profiles, and for one profile its tree — the connectors a charge
 * tries and in which order — edited without knowing the JSON: add, remove and reorder connectors and conditions of
 * any branch, switch a node off, set the default connector that ends every plan. A condition's value is typed as
 * JSON with its error shown inline. "Simulate a charge" asks the API (…/simulate) which connectors a charge with a
 * given method, brand, currency, amount and country would try, in order, and which it skips and why.
 */
import { useState } from 'preact/hooks';
import { call, type Page } from '../api';
import { DataTable, usePagedList } from '../list';
import { Chip, ErrorNote, Facts, Link, Notice, PageHeader, canManageMerchant, useLoad } from '../ui';
import { type RoutingNode, type Profile, type ConnectorOption, methodName, type TreeContext } from './routing/model';
import { listKey, siblingsIndex, SiblingList } from './routing/tree';
import { NewProfile, ProfileSettings } from './routing/profile-forms';
import { Simulate } from './routing/simulate';

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
    byId: new Map(nodes.data.data.map((node) => [node.id, node])),
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
