/**
 * Part 2 — cross-tenant sweep generated from the OpenAPI document. Two organizations with two merchants each,
 * every merchant holding one of every resource (support/world.ts). For every operation with an id in its path
 * and every verb, the victim's ids are sent with someone else's credentials: the other organization's merchant
 * and organization keys (naming their own merchant, and the victim's), the victim organization's other merchant
 * (its merchant key, and the organization key naming that other merchant), the other organization's Dashboard
 * session and public key. Every answer must be 404 — or 403 where the caller names a merchant outside its key,
 * as the document says — or be exactly what the same request gets for an id that does not exist (validation
 * before lookup: no way to tell the resource is there). After every mutating try the database is unchanged.
 * A new route is swept as soon as it is in the document; a path parameter nobody maps fails the sweep.
 */
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { request, type ApiResponse } from '../helpers/http';
import { ownIds, resourceOf, world, type MerchantWorld, type World } from './support/world';
import { changedTables, checksum, settled } from './support/db-checksum';
import {
  PREFIX,
  bodySchemaOf,
  credentialKindOf,
  fetchOpenApi,
  minimalValue,
  operationsOf,
  pathParamsOf,
  queryNamesOf,
  type Json,
  type Operation,
} from './support/openapi';
import { reportSummary } from './support/summary';
import { saveArtifact } from './support/artifacts';

/** Platform-wide catalog, the same for every tenant: not a tenant's resource. */
const GLOBAL_PARAMS = new Set(['provider_id']);

interface Caller {
  name: string;
  kind: 'apiKey' | 'publicKey' | 'dashboardToken';
  level?: 'merchant' | 'organization';
  headers: Record<string, string>;
  /** The caller's own merchant: its ids fill body fields that name another resource, so only the path is foreign. */
  own: MerchantWorld;
  /** The merchant an organization-level caller names in merchant_id (one of its own, or the victim's). */
  names?: string;
  namesOwnMerchant?: boolean;
  /** Naming the victim's merchant is refused as "outside the key": 403 is the documented answer then. */
  mayForbid: boolean;
  /** The victim's own organization key: every merchant of the organization is its own, so merchants are not foreign. */
  sameOrganization?: boolean;
}

function callersAgainst(victim: MerchantWorld, [orgA, orgB]: World): Caller[] {
  const [otherWorld, siblingWorld] = [orgB.merchants[0], orgA.merchants[1]];
  const [other, sibling] = [otherWorld.tenant, siblingWorld.tenant];
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  return [
    {
      name: 'other org, merchant key',
      own: otherWorld,
      kind: 'apiKey',
      level: 'merchant',
      headers: bearer(other.merchant_secret_key),
      mayForbid: true,
    },
    {
      name: 'other org, merchant key naming its own merchant',
      own: otherWorld,
      kind: 'apiKey',
      level: 'merchant',
      headers: bearer(other.merchant_secret_key),
      names: other.merchant_id,
      namesOwnMerchant: true,
      mayForbid: false,
    },
    {
      name: 'same org, other merchant key naming its own merchant',
      own: siblingWorld,
      kind: 'apiKey',
      level: 'merchant',
      headers: bearer(sibling.merchant_secret_key),
      names: sibling.merchant_id,
      namesOwnMerchant: true,
      mayForbid: false,
    },
    {
      name: 'other org, org key naming its merchant',
      own: otherWorld,
      kind: 'apiKey',
      level: 'organization',
      headers: bearer(other.organization_secret_key),
      names: other.merchant_id,
      namesOwnMerchant: true,
      mayForbid: false,
    },
    {
      name: 'other org, org key naming the victim merchant',
      own: otherWorld,
      kind: 'apiKey',
      level: 'organization',
      headers: bearer(other.organization_secret_key),
      names: victim.tenant.merchant_id,
      mayForbid: true,
    },
    {
      name: 'same org, other merchant key',
      own: siblingWorld,
      kind: 'apiKey',
      level: 'merchant',
      headers: bearer(sibling.merchant_secret_key),
      mayForbid: true,
    },
    {
      name: 'same org, org key naming the other merchant',
      own: siblingWorld,
      kind: 'apiKey',
      level: 'organization',
      headers: bearer(sibling.organization_secret_key),
      names: sibling.merchant_id,
      namesOwnMerchant: true,
      mayForbid: false,
      sameOrganization: true,
    },
    {
      name: 'other org, public key',
      own: otherWorld,
      kind: 'publicKey',
      headers: { 'x-public-key': other.merchant_public_key },
      mayForbid: true,
    },
    {
      name: 'same org, other merchant public key',
      own: siblingWorld,
      kind: 'publicKey',
      headers: { 'x-public-key': sibling.merchant_public_key },
      mayForbid: true,
    },
    {
      name: 'other org, Dashboard session',
      own: otherWorld,
      kind: 'dashboardToken',
      headers: { ...bearer(orgB.organizationToken), 'x-organization-id': orgB.organizationId },
      mayForbid: false,
    },
    {
      name: 'other org, Dashboard session naming the victim org',
      own: otherWorld,
      kind: 'dashboardToken',
      headers: { ...bearer(orgB.organizationToken), 'x-organization-id': orgA.organizationId },
      mayForbid: true,
    },
  ];
}

function applies(caller: Caller, op: Operation): boolean {
  const resources = pathParamsOf(op.path)
    .filter((param) => !GLOBAL_PARAMS.has(param))
    .map((param) => resourceOf(op.path, param));
  // With only a merchant in the path, a caller naming its own merchant (or the organization naming one of its
  // merchants) reads its own data: not a cross-tenant try.
  const merchantOnly = resources.every((resource) => resource === 'merchant');
  if (merchantOnly && (caller.sameOrganization || (caller.namesOwnMerchant && op.path.includes('{merchant_id}'))))
    return false;
  const kind = credentialKindOf(op.operation);
  if (kind !== caller.kind) return false;
  if (kind !== 'apiKey') return true;
  return ((op.operation['x-key-levels'] ?? []) as string[]).includes(caller.level!);
}

/** An id with the same prefix and length that names nothing. */
const missingId = (id: string) =>
  id.replace(
    /_[^_]+$/,
    (tail) =>
      '_' +
      randomBytes(32)
        .toString('base64url')
        .replace(/[-_]/g, 'x')
        .slice(0, tail.length - 1),
  );

interface Try {
  op: Operation;
  caller: Caller;
  res: ApiResponse;
  verdict: 'not_found' | 'forbidden' | 'indistinguishable' | 'exposed';
  /** The same request for ids that do not exist, when the answer was neither 404 nor an allowed 403. */
  control?: ApiResponse;
  changed: string[];
}

function buildRequest(doc: Json, op: Operation, caller: Caller, ids: Record<string, string>) {
  let path = op.path.slice(PREFIX.length);
  for (const param of pathParamsOf(op.path)) {
    const value = param === 'merchant_id' && caller.names ? caller.names : ids[param];
    path = path.replace(`{${param}}`, encodeURIComponent(value));
  }
  const query: Record<string, string> = {};
  const schema = bodySchemaOf(op.operation);
  let body = schema ? (minimalValue(doc, schema, ownIds(caller.own)) as Json) : undefined;
  if (caller.names && !op.path.includes('{merchant_id}')) {
    if (queryNamesOf(op.operation).includes('merchant_id')) query.merchant_id = caller.names;
    else if (body && schema?.properties?.merchant_id) body = { ...body, merchant_id: caller.names };
  }
  const headers: Record<string, string> = { ...caller.headers, 'idempotency-key': randomBytes(12).toString('hex') };
  if (caller.kind === 'publicKey' && ids.sessionId) headers['x-session-id'] = ids.sessionId;
  return { path, query, body, headers };
}

describe('Reliability 2: cross-tenant sweep of every operation with an id in its path', function () {
  this.timeout(20 * 60_000);

  it('answers 404 (or the documented 403) to every foreign caller, and changes nothing', async () => {
    const built = await world();
    const doc = await fetchOpenApi();
    const victim = built[0].merchants[0];
    const swept = operationsOf(doc).filter((op) => pathParamsOf(op.path).some((param) => !GLOBAL_PARAMS.has(param)));
    const unmapped = swept.flatMap((op) =>
      pathParamsOf(op.path)
        .filter((param) => !GLOBAL_PARAMS.has(param) && !victim.ids[resourceOf(op.path, param)])
        .map((param) => `${op.label}: {${param}}`),
    );
    expect(unmapped, 'path parameters with no resource in support/world.ts').to.deep.equal([]);

    const callers = callersAgainst(victim, built);
    const tries: Try[] = [];
    // The world's tenants only: rows of other parts' tenants (the fuzzer's) may change in the background meanwhile.
    const scope = {
      merchantIds: built.flatMap((org) => org.merchants.map((merchant) => merchant.tenant.merchant_id)),
      organizationIds: built.map((org) => org.organizationId),
    };
    let before = await settled(scope);
    for (const op of swept) {
      const ids = Object.fromEntries(
        pathParamsOf(op.path).map((param) => [param, victim.ids[resourceOf(op.path, param)]]),
      );
      const missing = Object.fromEntries(
        Object.entries(ids).map(([param, id]) => [param, param === 'merchant_id' ? id : missingId(id)]),
      );
      for (const caller of callers.filter((candidate) => applies(candidate, op))) {
        const built1 = buildRequest(doc, op, caller, ids);
        const res = await request(op.method.toUpperCase(), built1.path, { ...built1, body: built1.body });
        let verdict: Try['verdict'];
        let control: ApiResponse | undefined;
        if (res.status === 404) verdict = 'not_found';
        else if (res.status === 403 && caller.mayForbid) verdict = 'forbidden';
        else {
          const twin = buildRequest(doc, op, caller, missing);
          const answer = await request(op.method.toUpperCase(), twin.path, { ...twin, body: twin.body });
          control = answer;
          const same =
            res.status >= 400 &&
            res.status < 500 &&
            answer.status === res.status &&
            answer.body?.error?.code === res.body?.error?.code;
          verdict = same ? 'indistinguishable' : 'exposed';
        }
        let changed: string[] = [];
        if (op.method !== 'get') {
          const after = await checksum(scope);
          changed = changedTables(before, after);
          before = after;
        }
        tries.push({ op, caller, res, verdict, changed, control });
        saveArtifact(
          'cross-tenant/tries.jsonl',
          JSON.stringify({
            op: op.label,
            caller: caller.name,
            status: res.status,
            verdict,
            changed,
            control: control?.status,
          }) + '\n',
          { append: true },
        );
      }
    }

    const exposed = tries.filter((t) => t.verdict === 'exposed');
    const mutated = tries.filter((t) => t.changed.length > 0);
    const count = (verdict: Try['verdict']) => tries.filter((t) => t.verdict === verdict).length;
    reportSummary('cross-tenant', {
      operations: swept.length,
      tries: tries.length,
      not_found: count('not_found'),
      forbidden: count('forbidden'),
      indistinguishable: count('indistinguishable'),
      exposed: exposed.length,
      mutating_tries: tries.filter((t) => t.op.method !== 'get').length,
      db_changed: mutated.length,
    });
    const describe = (t: Try) =>
      `${t.op.label} as ${t.caller.name}: ${t.res.status} ${t.res.text.slice(0, 300)}` +
      (t.control ? ` (missing id: ${t.control.status} ${t.control.text.slice(0, 200)})` : '') +
      (t.changed.length ? ` — changed ${t.changed.join(', ')}` : '');
    expect(exposed.length, `answers that differ from a missing id:\n${exposed.map(describe).join('\n')}`).to.equal(0);
    expect(mutated.length, `foreign tries that changed the database:\n${mutated.map(describe).join('\n')}`).to.equal(0);
    const sweptOps = new Set(tries.map((t) => t.op.label));
    expect(
      swept.filter((op) => !sweptOps.has(op.label)).map((op) => op.label),
      'operations no caller could try',
    ).to.deep.equal([]);
  });
});
