/** DELETE /merchants/:id (Document 3): only a merchant without activity goes; anything it owns → 409. */
import { expect } from 'chai';
import { api } from '../helpers/http';
import { createTenant, keyWithScopes, type Tenant } from '../helpers/factories';
import { expectError } from '../helpers/envelope';
import { createFamily, createOffer } from '../helpers/catalog';
import { createProduct } from '../helpers/offers';
import { issueApiKey } from '../../domain/api-keys/api-keys.service';
import { newId } from '../../domain/platform/ids';
import { stack } from '../helpers/stack';
import { createConnector } from '../helpers/routing';
import { activityOf, createMerchant, keyId, rows, setEnrolled } from '../helpers/merchants';

/** A connector written straight to the database, with real sealed secrets (the connectors API has its own tests). */
async function insertConnector(merchantId: string): Promise<string> {
  return (await createConnector(merchantId)).id;
}

describe('DELETE /api/v1/merchants/:id', () => {
  let tenant: Tenant;
  let merchant: any;
  const del = (id = merchant.id, key = tenant.organization_secret_key) => api.delete(`/merchants/${id}`, { key });
  const expectInUse = async (blocking: string[]) => {
    const error = expectError(await del(), 409, 'conflict_error', 'RESOURCE_IN_USE');
    expect(error.details.blocking).to.have.members(blocking);
    expect(await rows('select id from merchants where id = ?', [merchant.id])).to.have.length(1);
    expect(await rows('select id from merchant_members where merchant_id = ?', [merchant.id])).to.have.length(1);
  };

  beforeEach(async () => {
    tenant = await createTenant();
    merchant = await createMerchant(tenant);
  });

  it('deletes a merchant without activity: 204 with no body, then 404', async () => {
    const res = await del();
    expect(res.status, res.text).to.equal(204);
    expect(res.text).to.equal('');
    expectError(
      await api.get(`/merchants/${merchant.id}`, { key: tenant.organization_secret_key }),
      404,
      'not_found_error',
    );
    expectError(await del(), 404, 'not_found_error');
  });

  it('removes its memberships and the users left without any, keeping users with other memberships', async () => {
    const shared = `shared.${Date.now()}@example.com`;
    const other = await createMerchant(tenant, { primary_email: shared });
    const doomed = await createMerchant(tenant, { primary_email: shared.toUpperCase() });
    const [soloUser] = await rows('select user_id from merchant_members where merchant_id = ?', [merchant.id]);
    expect((await del()).status).to.equal(204);
    expect((await del(doomed.id)).status).to.equal(204);
    expect(
      await rows('select id from merchant_members where merchant_id in (?, ?)', [merchant.id, doomed.id]),
    ).to.have.length(0);
    expect(await rows('select id from merchant_users where id = ?', [soloUser.user_id])).to.have.length(0);
    expect(await rows('select id from merchant_users where email = ?', [shared])).to.have.length(1);
    expect(await rows('select id from merchant_members where merchant_id = ?', [other.id])).to.have.length(1);
  });

  it('keeps the activity log and ends it with merchant.deleted by the acting key', async () => {
    const key = await keyWithScopes(tenant, ['merchants:write'], 'organization');
    expect((await del(merchant.id, key)).status).to.equal(204);
    const log = await activityOf(merchant.id);
    expect(log.map((row) => row.action)).to.include.members(['merchant.created', 'member.invited', 'merchant.deleted']);
    const deleted = log.find((row) => row.action === 'merchant.deleted');
    expect(deleted).to.include({
      actor_type: 'api_key',
      actor_id: await keyId(key),
      organization_id: tenant.organization_id,
    });
    expect(deleted.changes).to.include({ name: merchant.name, slug: merchant.slug });
  });

  it('frees the slug for a new merchant', async () => {
    expect((await del()).status).to.equal(204);
    expect((await createMerchant(tenant, { slug: merchant.slug })).slug).to.equal(merchant.slug);
  });

  it('deletes the merchant with its revoked API keys (they do not count as live)', async () => {
    const { record } = await issueApiKey(stack().orm.em.fork(), {
      organizationId: tenant.organization_id,
      merchantId: merchant.id,
      kind: 'secret',
    });
    await rows(`update api_keys set status = 'revoked', revoked_at = now() where id = ?`, [record.id]);
    expect((await del()).status).to.equal(204);
    expect(await rows('select id from api_keys where id = ?', [record.id])).to.have.length(0);
  });

  describe('returns 409 RESOURCE_IN_USE, deleting nothing, when the merchant has', () => {
    it('a customer', async () => {
      await rows('insert into customers (id, merchant_id, email) values (?, ?, ?)', [
        newId('cust'),
        merchant.id,
        'c@example.com',
      ]);
      await expectInUse(['customers']);
    });

    it('a product family', async () => {
      await createFamily(merchant.id);
      await expectInUse(['catalog']);
    });

    it('a soft-deleted product family (history counts)', async () => {
      const family = await createFamily(merchant.id);
      await rows('update product_families set deleted_at = now() where id = ?', [family.id]);
      await expectInUse(['catalog']);
    });

    it('a standalone product', async () => {
      await createProduct(merchant.id, null);
      await expectInUse(['catalog']);
    });

    it('an offer', async () => {
      const { offer } = await createOffer(merchant.id);
      // Only the offer left: move its product and family to the tenant's merchant.
      await rows('update products set merchant_id = ? where id = (select product_id from offers where id = ?)', [
        tenant.merchant_id,
        offer.id,
      ]);
      await rows('update product_families set merchant_id = ? where merchant_id = ?', [
        tenant.merchant_id,
        merchant.id,
      ]);
      await rows('update offer_prices set merchant_id = ? where offer_id = ?', [tenant.merchant_id, offer.id]);
      await expectInUse(['catalog']);
    });

    it('a checkout session', async () => {
      // The offer belongs to another merchant so that only the session names this one.
      const { offer } = await createOffer(tenant.merchant_id);
      await rows(`insert into checkout_sessions (id, merchant_id, offer_id, status) values (?, ?, ?, 'initiated')`, [
        newId('cks'),
        merchant.id,
        offer.id,
      ]);
      await expectInUse(['checkout_sessions']);
    });

    it('a connector', async () => {
      await insertConnector(merchant.id);
      await expectInUse(['connectors']);
    });

    it('a routing profile', async () => {
      const connectorId = await insertConnector(tenant.merchant_id);
      await rows(
        'insert into routing_profiles (id, merchant_id, name, default_merchant_connector_id) values (?, ?, ?, ?)',
        [newId('rp'), merchant.id, 'Default', connectorId],
      );
      await expectInUse(['routing_profiles']);
    });

    it('a live API key', async () => {
      await issueApiKey(stack().orm.em.fork(), {
        organizationId: tenant.organization_id,
        merchantId: merchant.id,
        kind: 'public',
      });
      await expectInUse(['live_api_keys']);
    });

    it('card-network enrollment', async () => {
      await setEnrolled(merchant.id);
      await expectInUse(['network_enrollment']);
    });

    it('several of these at once (all named)', async () => {
      await createFamily(merchant.id);
      await insertConnector(merchant.id);
      await setEnrolled(merchant.id);
      await expectInUse(['catalog', 'connectors', 'network_enrollment']);
    });

    it('any other row referencing it (a table not in the list): other_records, never a 500', async () => {
      const { offer } = await createOffer(tenant.merchant_id);
      await rows(
        `insert into offer_prices (id, merchant_id, offer_id, currency, amount, is_default) values (?, ?, ?, 'EUR', 100, false)`,
        [newId('opr'), merchant.id, offer.id],
      );
      await expectInUse(['other_records']);
    });
  });

  it('records no merchant.deleted activity when the delete is refused', async () => {
    await setEnrolled(merchant.id);
    await del();
    expect((await activityOf(merchant.id)).map((row) => row.action)).not.to.include('merchant.deleted');
  });

  it("returns 404 for another organization's merchant, deleting nothing", async () => {
    const other = await createTenant();
    const target = await createMerchant(other);
    expectError(await del(target.id), 404, 'not_found_error');
    expect(await rows('select id from merchants where id = ?', [target.id])).to.have.length(1);
  });

  it('refuses a merchant key with 403', async () => {
    expectError(await del(tenant.merchant_id, tenant.merchant_secret_key), 403, 'authorization_error');
  });

  it('refuses an organization key without merchants:write with 403', async () => {
    const key = await keyWithScopes(tenant, ['merchants:read'], 'organization');
    expectError(await del(merchant.id, key), 403, 'authorization_error');
  });
});
