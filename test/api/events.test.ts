/** GET /api/v1/events and /events/:id (beyond the spec), and recordEvent, the one way areas record events. */
import { expect } from 'chai';
import { api } from '../helpers/http';
import { addMerchant, createTenant, keyWithScopes, type Tenant } from '../helpers/factories';
import { expectError, expectFieldErrors, expectWrapped } from '../helpers/envelope';
import { stack } from '../helpers/stack';
import { recordTestEvent } from '../helpers/webhooks';
import { recordEvent, type EventType } from '../../domain/events/events.outbox';

describe('GET /api/v1/events', () => {
  let tenant: Tenant;
  beforeEach(async () => {
    tenant = await createTenant();
  });
  const list = (query: Record<string, any> = {}, key = tenant.merchant_secret_key) =>
    api.get('/events', { key, query });

  it("lists the merchant's events newest first in the wrapped envelope, each as the Event envelope plus merchant_id", async () => {
    const first = await recordTestEvent(
      tenant,
      'transaction.created',
      { id: 'tx_1', amount: 100 },
      { fannedOut: true },
    );
    const second = await recordTestEvent(tenant, 'subscription.renewed', { id: 'sub_1' }, { fannedOut: true });
    const data = expectWrapped(await list(), 200, { list: true });
    expect(data.map((e: any) => e.id)).to.deep.equal([second.id, first.id]);
    expect(data[1]).to.deep.equal({
      id: first.id,
      type: 'transaction.created',
      livemode: true,
      created_at: first.createdAt.toISOString(),
      data: { object: { id: 'tx_1', amount: 100 } },
      merchant_id: tenant.merchant_id,
    });
    expect((await list({ limit: 1, page: 2 })).body.meta.pagination).to.deep.equal({
      page: 2,
      limit: 1,
      total: 2,
      total_pages: 2,
      has_next: false,
      has_prev: true,
    });
  });

  it('filters by type (repeated or comma-separated) and by creation time (inclusive)', async () => {
    const created = await recordTestEvent(tenant, 'transaction.created', {}, { fannedOut: true });
    const failed = await recordTestEvent(tenant, 'transaction.failed', {}, { fannedOut: true });
    await recordTestEvent(tenant, 'subscription.paused', {}, { fannedOut: true });
    const types = async (query: Record<string, any>) => (await list(query)).body.data.map((e: any) => e.type);
    expect(await types({ type: 'transaction.created,transaction.failed' })).to.deep.equal([
      'transaction.failed',
      'transaction.created',
    ]);
    expect(await types({ type: ['subscription.paused', 'transaction.failed'] })).to.deep.equal([
      'subscription.paused',
      'transaction.failed',
    ]);
    expect(
      await types({ date_from: failed.createdAt.toISOString(), date_to: failed.createdAt.toISOString() }),
    ).to.deep.equal(['transaction.failed']);
    expect(await types({ date_to: created.createdAt.toISOString() })).to.deep.equal(['transaction.created']);
  });

  it('refuses unknown types, bad dates and date_from after date_to (400)', async () => {
    expectFieldErrors(await list({ type: 'transaction.settled' }), ['type']);
    expectFieldErrors(await list({ date_from: 'monday' }), ['date_from']);
    expectFieldErrors(await list({ date_from: '2026-02-01T00:00:00Z', date_to: '2026-01-01T00:00:00Z' }), [
      'date_from',
    ]);
  });

  it("takes an organization key with merchant_id (403 without); webhooks:read; never another merchant's events", async () => {
    await recordTestEvent(tenant, 'transaction.created', {}, { fannedOut: true });
    const second = await addMerchant(tenant);
    expect((await list({ merchant_id: tenant.merchant_id }, tenant.organization_secret_key)).body.data).to.have.length(
      1,
    );
    expect((await list({ merchant_id: second.merchantId }, tenant.organization_secret_key)).body.data).to.have.length(
      0,
    );
    expectError(await list({}, tenant.organization_secret_key), 403, 'authorization_error');
    expectError(await list({}, await keyWithScopes(tenant, ['webhooks:write'])), 403, 'authorization_error');
  });
});

describe('GET /api/v1/events/:id', () => {
  it("returns the event; 404 for another merchant's, an unknown or a malformed id", async () => {
    const tenant = await createTenant();
    const event = await recordTestEvent(
      tenant,
      'payment_method.action_required',
      { id: 'pi_1', status: 'expired' },
      { fannedOut: true },
    );
    const data = expectWrapped(await api.get(`/events/${event.id}`, { key: tenant.merchant_secret_key }), 200);
    expect(data).to.deep.equal({
      id: event.id,
      type: 'payment_method.action_required',
      livemode: true,
      created_at: event.createdAt.toISOString(),
      data: { object: { id: 'pi_1', status: 'expired' } },
      merchant_id: tenant.merchant_id,
    });
    expect(
      (
        await api.get(`/events/${event.id}`, {
          key: tenant.organization_secret_key,
          query: { merchant_id: tenant.merchant_id },
        })
      ).status,
    ).to.equal(200);
    const second = await addMerchant(tenant);
    expectError(await api.get(`/events/${event.id}`, { key: second.merchantKey }), 404, 'not_found_error');
    expectError(await api.get('/events/evt_unknown0000000000000000', { key: tenant.merchant_secret_key }), 404);
    expectError(await api.get('/events/tx_123', { key: tenant.merchant_secret_key }), 404);
  });
});

describe('recordEvent', () => {
  it('refuses a type outside the catalog and a call outside a transaction', async () => {
    const tenant = await createTenant();
    const input = {
      organizationId: tenant.organization_id,
      merchantId: tenant.merchant_id,
      livemode: true,
      object: {},
    };
    const em = stack().orm.em.fork();
    await em
      .transactional((tx) => recordEvent(tx, { ...input, type: 'transaction.settled' as EventType }))
      .then(
        () => expect.fail('accepted an unknown type'),
        (error: Error) => expect(error.message).to.match(/Unknown event type/),
      );
    await recordEvent(stack().orm.em.fork(), { ...input, type: 'transaction.created' }).then(
      () => expect.fail('accepted a call outside a transaction'),
      (error: Error) => expect(error.message).to.match(/inside the transaction/),
    );
    expect(
      await stack().orm.em.fork().execute('select id from events where merchant_id = ?', [tenant.merchant_id]),
    ).to.have.length(0);
  });

  it("stores the object as plain JSON in the producer's field order (dates become ISO strings)", async () => {
    const tenant = await createTenant();
    const event = await recordTestEvent(
      tenant,
      'subscription.created',
      { id: 'sub_1', status: 'active', current_period_end: new Date('2026-12-01T00:00:00Z'), amount: 990 },
      { fannedOut: true },
    );
    const [row] = await stack()
      .orm.em.fork()
      .execute<{ data: string }[]>('select data::text as data from events where id = ?', [event.id]);
    expect(row.data).to.equal(
      '{"id":"sub_1","status":"active","current_period_end":"2026-12-01T00:00:00.000Z","amount":990}',
    );
  });
});
