/**
 * Part 3 — mass assignment. For every create and update body in the OpenAPI document, the owner of the resource
 * (a merchant of the second organization, with its own real ids) sends a valid body plus one read-only or
 * foreign field at a time: `id`, `merchant_id`, `organization_id`, `status`, amounts, timestamps, every sealed
 * `*_encrypted` column, and every field the response shows but the body does not take. Each must be refused
 * (400 naming the field; 403/404 for a foreign merchant or organization) or ignored (a 2xx that does not carry
 * the injected value) — never applied. Fields the body documents as inputs are not read-only and are skipped,
 * except merchant_id and organization_id, which are tried with another tenant's ids.
 */
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { request, type ApiResponse } from '../helpers/http';
import { ownIds, resourceOf, world } from './support/world';
import {
  PREFIX,
  bodySchemaOf,
  credentialKindOf,
  fetchOpenApi,
  minimalValue,
  operationsOf,
  pathParamsOf,
  type Json,
  type Operation,
} from './support/openapi';
import { reportSummary } from './support/summary';

const SEALED_COLUMNS = [
  'content_encrypted',
  'credentials_encrypted',
  'cvc_encrypted',
  'document_number_encrypted',
  'holder_name_encrypted',
  'pan_encrypted',
  'previous_secret_encrypted',
  'secret_encrypted',
  'webhook_secret_encrypted',
  'webhook_token_encrypted',
];
const FIXED_FIELDS = [
  'id',
  'merchant_id',
  'organization_id',
  'status',
  'amount',
  'amount_authorized',
  'amount_captured',
  'amount_refunded',
  'created_at',
  'updated_at',
  'deleted_at',
  ...SEALED_COLUMNS,
];
const TENANT_FIELDS = new Set(['merchant_id', 'organization_id']);
const INJECTED_TIME = '2001-02-03T04:05:06.000Z';

/** Properties of the success response's resource (data of the envelope, or the bare body). */
function responseFields(doc: Json, operation: Json): string[] {
  const fields = new Set<string>();
  for (const [status, response] of Object.entries((operation.responses ?? {}) as Record<string, Json>)) {
    if (!/^2/.test(status)) continue;
    let schema = response.content?.['application/json']?.schema as Json | undefined;
    if (!schema) continue;
    if (schema.properties?.data && schema.properties?.success) schema = schema.properties.data as Json;
    for (const option of [schema, ...((schema.anyOf ?? schema.oneOf ?? []) as Json[])])
      for (const name of Object.keys(option?.properties ?? {})) fields.add(name);
  }
  void doc;
  return [...fields];
}

function injectedValue(field: string): unknown {
  if (field === 'id' || field.endsWith('_id')) return `inj_${randomBytes(9).toString('hex')}`;
  if (field.endsWith('_at')) return INJECTED_TIME;
  if (field.startsWith('amount') || field.endsWith('_amount')) return 987654;
  if (field === 'status') return 'succeeded';
  if (field.endsWith('_encrypted')) return 'v1:injected-ciphertext';
  return 'mass-assigned';
}

interface Outcome {
  label: string;
  field: string;
  verdict: 'refused' | 'ignored' | 'applied' | 'inconclusive';
  res: ApiResponse;
}

describe('Reliability 3: mass assignment on every create and update body', function () {
  this.timeout(15 * 60_000);

  it('refuses or ignores read-only and foreign fields, never applies them', async () => {
    const [orgA, orgB] = await world();
    const actor = orgB.merchants[1];
    const tenant = actor.tenant;
    const foreign = { merchant_id: orgA.merchants[0].tenant.merchant_id, organization_id: orgA.organizationId };
    const doc = await fetchOpenApi();
    const writes = operationsOf(doc).filter(
      (op: Operation) => ['post', 'put', 'patch'].includes(op.method) && bodySchemaOf(op.operation)?.type === 'object',
    );

    const outcomes: Outcome[] = [];
    for (const op of writes) {
      const kind = credentialKindOf(op.operation);
      const levels = (op.operation['x-key-levels'] ?? []) as string[];
      const orgLevel = kind === 'apiKey' && !levels.includes('merchant');
      const headers: Record<string, string> =
        kind === 'publicKey'
          ? { 'x-public-key': tenant.merchant_public_key, 'x-session-id': actor.ids.browserSession }
          : kind === 'dashboardToken'
            ? // The merchant Dashboard (/merchant/…) takes a merchant user's session, the organization one the other.
              op.path.startsWith(`${PREFIX}/merchant/`)
              ? { authorization: `Bearer ${actor.merchantToken}`, 'x-merchant-id': tenant.merchant_id }
              : { authorization: `Bearer ${orgB.organizationToken}`, 'x-organization-id': orgB.organizationId }
            : kind === 'apiKey'
              ? { authorization: `Bearer ${orgLevel ? tenant.organization_secret_key : tenant.merchant_secret_key}` }
              : {};
      let path = op.path.slice(PREFIX.length);
      for (const param of pathParamsOf(op.path)) {
        const id = param === 'provider_id' ? 'provider_a' : actor.ids[resourceOf(op.path, param)];
        path = path.replace(`{${param}}`, encodeURIComponent(id ?? 'unknown'));
      }
      const schema = bodySchemaOf(op.operation)!;
      const inputs = new Set(Object.keys(schema.properties ?? {}));
      const base = minimalValue(doc, schema, ownIds(actor)) as Json;
      const fields = [...new Set([...FIXED_FIELDS, ...responseFields(doc, op.operation)])].filter(
        (field) => !inputs.has(field) || TENANT_FIELDS.has(field),
      );
      for (const field of fields) {
        const value = inputs.has(field) ? foreign[field as keyof typeof foreign] : injectedValue(field);
        const res = await request(op.method.toUpperCase(), path, {
          headers: { ...headers, 'idempotency-key': randomBytes(12).toString('hex') },
          body: { ...base, [field]: value },
        });
        const named = res.status === 400 && Object.keys(res.body?.error?.details ?? {}).includes(field);
        let verdict: Outcome['verdict'];
        if (named || (inputs.has(field) && [403, 404].includes(res.status))) verdict = 'refused';
        else if (res.status >= 200 && res.status < 300) {
          const data = (res.body?.data ?? res.body) as Json | undefined;
          verdict = data && typeof data === 'object' && data[field] === value ? 'applied' : 'ignored';
        } else verdict = 'inconclusive';
        outcomes.push({ label: op.label, field, verdict, res });
      }
    }

    const count = (verdict: Outcome['verdict']) => outcomes.filter((o) => o.verdict === verdict).length;
    reportSummary('mass-assignment', {
      bodies: writes.length,
      cases: outcomes.length,
      refused: count('refused'),
      ignored: count('ignored'),
      applied: count('applied'),
      inconclusive: count('inconclusive'),
    });
    const show = (o: Outcome) => `${o.label} ${o.field}: ${o.res.status} ${o.res.text.slice(0, 300)}`;
    expect(outcomes.filter((o) => o.verdict === 'applied').map(show), 'applied').to.deep.equal([]);
    expect(outcomes.filter((o) => o.verdict === 'inconclusive').map(show), 'neither refused nor ignored').to.deep.equal(
      [],
    );
    expect(writes.length, 'create and update bodies in the document').to.be.greaterThan(40);
  });
});
