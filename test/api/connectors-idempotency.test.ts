/**
 * Doc 1, Idempotency: create mutations accept an Idempotency-Key header or an idempotency_key body field. The
 * Dashboards' connector creates too: a retry after a lost answer replays the first answer instead of adding a
 * second connector, and the same key with another body is 409 IDEMPOTENCY_KEY_CONFLICT.
 */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { api } from '../helpers/http';
import { createTenant, type Tenant } from '../helpers/factories';
import { rows } from '../helpers/db';
import { bearer, createMerchantUser, createOrganizationUser, signIn } from '../helpers/dashboard';
import { connectorBody } from '../helpers/connectors';
import { expectError } from '../helpers/envelope';

const connectorsOf = async (merchantId: string) =>
  (await rows('select id from merchant_connectors where merchant_id = ?', [merchantId])).map((r: any) => r.id);

describe('Connector creates from the Dashboards honor Idempotency-Key', () => {
  let tenant: Tenant;
  let orgHeaders: Record<string, string>;
  let merchantHeaders: Record<string, string>;
  before(async () => {
    tenant = await createTenant();
    const orgUser = await createOrganizationUser([tenant.organization_id]);
    orgHeaders = bearer((await signIn('organization', orgUser)).access_token as string, {
      'x-organization-id': tenant.organization_id,
    });
    const merchantUser = await createMerchantUser(tenant.organization_id, [tenant.merchant_id]);
    merchantHeaders = bearer((await signIn('merchant', merchantUser)).access_token as string, {
      'x-merchant-id': tenant.merchant_id,
    });
  });

  const routes = [
    {
      route: 'POST /org/connectors',
      post: (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
        api.post('/org/connectors', {
          headers: { ...orgHeaders, ...headers },
          body: { merchant_id: tenant.merchant_id, ...body },
        }),
    },
    {
      route: 'POST /merchant/connectors',
      post: (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
        api.post('/merchant/connectors', { headers: { ...merchantHeaders, ...headers }, body }),
    },
  ];

  for (const { route, post } of routes) {
    describe(route, () => {
      it('the same Idempotency-Key and body twice create one connector and answer the first answer again', async () => {
        const before = await connectorsOf(tenant.merchant_id);
        const key = `conn-${randomUUID()}`;
        const body = connectorBody('provider_a', { name: `Once ${key}` });
        const first = await post(body, { 'idempotency-key': key });
        expect(first.status, first.text).to.equal(201);
        const replay = await post(body, { 'idempotency-key': key });
        expect(replay.status, replay.text).to.equal(200);
        expect(replay.body).to.deep.equal(first.body);
        const after = await connectorsOf(tenant.merchant_id);
        expect(after.filter((id: string) => !before.includes(id))).to.deep.equal([first.body.id]);
      });

      it('accepts the key as the idempotency_key body field', async () => {
        const key = `conn-${randomUUID()}`;
        const body = { ...connectorBody('provider_b', { name: `Field ${key}` }), idempotency_key: key };
        const first = await post(body);
        expect(first.status, first.text).to.equal(201);
        const replay = await post(body);
        expect(replay.status, replay.text).to.equal(200);
        expect(replay.body.id).to.equal(first.body.id);
      });

      it('409 IDEMPOTENCY_KEY_CONFLICT for the same key with another body, creating nothing', async () => {
        const key = `conn-${randomUUID()}`;
        const first = await post(connectorBody('provider_a', { name: `First ${key}` }), { 'idempotency-key': key });
        expect(first.status, first.text).to.equal(201);
        const before = await connectorsOf(tenant.merchant_id);
        const other = await post(connectorBody('provider_a', { name: `Other ${key}` }), { 'idempotency-key': key });
        expectError(other, 409, 'conflict_error', 'IDEMPOTENCY_KEY_CONFLICT');
        expect(await connectorsOf(tenant.merchant_id)).to.have.members(before);
      });
    });
  }
});
