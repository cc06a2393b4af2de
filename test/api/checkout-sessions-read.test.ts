import { expect } from 'chai';
import { api } from '../helpers/http';
import { addMerchant, createTenant, customerInput, keyWithScopes, type Tenant } from '../helpers/factories';
import { expectError, expectFieldErrors, expectWrapped } from '../helpers/envelope';
import { createSession, HOUR, inFuture, newSession, sellableOffer, setStored } from '../helpers/checkout';

const ids = (data: Array<{ id: string }>) => data.map((session) => session.id);

describe('GET /api/v1/checkout-sessions', () => {
  let tenant: Tenant;
  let offerId: string;
  beforeEach(async () => {
    tenant = await createTenant();
    offerId = (await sellableOffer(tenant)).offer.id;
  });

  const list = (query: Record<string, string | number | string[]> = {}, key = tenant.merchant_secret_key) =>
    api.get('/checkout-sessions', { key, query });

  it('lists newest first with meta.pagination, without items', async () => {
    const first = await createSession(tenant, { offer_id: offerId });
    const second = await createSession(tenant, { offer_id: offerId });
    const res = await list();
    const data = expectWrapped(res, 200, { list: true });
    expect(ids(data)).to.deep.equal([second.id, first.id]);
    expect(data[0]).to.not.have.property('items');
    expect(data[0]).to.not.have.property('events');
    expect(res.body.meta.pagination).to.deep.equal({
      page: 1,
      limit: 20,
      total: 2,
      total_pages: 1,
      has_next: false,
      has_prev: false,
    });
  });

  it('pages with page and limit', async () => {
    const sessions = [];
    for (let i = 0; i < 3; i += 1) sessions.push(await createSession(tenant, { offer_id: offerId }));
    const res = await list({ page: 2, limit: 2 });
    expect(ids(res.body.data)).to.deep.equal([sessions[0].id]);
    expect(res.body.meta.pagination).to.include({
      page: 2,
      limit: 2,
      total: 3,
      total_pages: 2,
      has_next: false,
      has_prev: true,
    });
  });

  it('filters by several statuses, repeated or comma-separated', async () => {
    const identified = await createSession(tenant, { offer_id: offerId });
    const abandoned = await createSession(tenant, { offer_id: offerId });
    await api.post(`/checkout-sessions/${abandoned.id}/abandon`, { key: tenant.merchant_secret_key });
    const completed = await createSession(tenant, { offer_id: offerId });
    await setStored(completed.id, { status: 'completed' });
    expect(ids((await list({ status: 'abandoned' })).body.data)).to.deep.equal([abandoned.id]);
    expect(ids((await list({ status: ['abandoned', 'customer_identified'] })).body.data)).to.deep.equal([
      abandoned.id,
      identified.id,
    ]);
    expect(ids((await list({ status: 'completed,abandoned' })).body.data)).to.deep.equal([completed.id, abandoned.id]);
  });

  it('counts a session past expires_at as expired, not as its stored state, in filters and totals', async () => {
    const lapsedInitiated = await createSession(tenant, { offer_id: offerId, expires_at: inFuture(HOUR) });
    await setStored(lapsedInitiated.id, {
      status: 'initiated',
      customer_id: null,
      expires_at: new Date(Date.now() - 1000),
    });
    const lapsedIdentified = await createSession(tenant, { offer_id: offerId, expires_at: inFuture(HOUR) });
    await setStored(lapsedIdentified.id, { expires_at: new Date(Date.now() - 1000) });
    const live = await createSession(tenant, { offer_id: offerId, expires_at: inFuture(HOUR) });
    await setStored(live.id, { status: 'initiated', customer_id: null });

    const expired = await list({ status: 'expired' });
    expect(ids(expired.body.data)).to.deep.equal([lapsedIdentified.id, lapsedInitiated.id]);
    expect(expired.body.meta.pagination.total).to.equal(2);
    expect(expired.body.data.map((session: { status: string }) => session.status)).to.deep.equal([
      'expired',
      'expired',
    ]);
    expect(ids((await list({ status: 'initiated' })).body.data)).to.deep.equal([live.id]);
    expect(ids((await list({ status: 'customer_identified' })).body.data)).to.deep.equal([]);
    const all = await list();
    expect(all.body.data.map((session: { status: string }) => session.status)).to.deep.equal([
      'initiated',
      'expired',
      'expired',
    ]);
  });

  it('never reports a completed or abandoned session as expired', async () => {
    const paid = await createSession(tenant, { offer_id: offerId, expires_at: inFuture(HOUR) });
    await setStored(paid.id, { status: 'completed', expires_at: new Date(Date.now() - 1000) });
    expect((await list({ status: 'expired' })).body.data).to.deep.equal([]);
    expect(ids((await list({ status: 'completed' })).body.data)).to.deep.equal([paid.id]);
  });

  it('filters by offer_id, customer_id, customer_email (case-insensitive) and external_session_id, combined with AND', async () => {
    const otherOffer = (await sellableOffer(tenant)).offer.id;
    const target = await createSession(tenant, {
      offer_id: offerId,
      customer: customerInput({ email: 'find.me@example.com' }),
      external_session_id: 'ref-1',
    });
    await createSession(tenant, { offer_id: otherOffer, customer_id: target.customer_id });
    await createSession(tenant, { offer_id: offerId });
    expect(ids((await list({ offer_id: otherOffer })).body.data)).to.have.length(1);
    expect(ids((await list({ customer_id: target.customer_id! })).body.data)).to.have.length(2);
    expect(ids((await list({ customer_email: 'FIND.me@Example.com' })).body.data)).to.have.length(2);
    expect(ids((await list({ external_session_id: 'ref-1' })).body.data)).to.deep.equal([target.id]);
    expect(ids((await list({ customer_id: target.customer_id!, offer_id: offerId })).body.data)).to.deep.equal([
      target.id,
    ]);
  });

  it('rejects unknown statuses, bad paging and unknown parameters with 400', async () => {
    expectFieldErrors(await list({ status: 'paid' }), ['status']);
    expectFieldErrors(await list({ limit: 101 }), ['limit']);
    expectFieldErrors(await list({ page: 0 }), ['page']);
    expectFieldErrors(await list({ sort: 'asc' }), ['sort']);
  });

  it("never lists another merchant's sessions", async () => {
    const other = await createTenant();
    await newSession(other);
    expect((await list()).body.data).to.deep.equal([]);
  });

  it('accepts an organization key with merchant_id, and refuses one without it with 403', async () => {
    const session = await createSession(tenant, { offer_id: offerId });
    expect(
      ids((await list({ merchant_id: tenant.merchant_id }, tenant.organization_secret_key)).body.data),
    ).to.deep.equal([session.id]);
    expectError(await list({}, tenant.organization_secret_key), 403, 'authorization_error');
  });

  it('refuses a key without checkout:read with 403', async () => {
    expectError(await list({}, await keyWithScopes(tenant, ['checkout:write'])), 403, 'authorization_error');
  });
});

describe('GET /api/v1/checkout-sessions/:id', () => {
  let tenant: Tenant;
  beforeEach(async () => {
    tenant = await createTenant();
  });

  const get = (id: string, query: Record<string, string> = {}, key = tenant.merchant_secret_key) =>
    api.get(`/checkout-sessions/${id}`, { key, query });

  it('returns the session with its items and without events by default', async () => {
    const { session } = await newSession(tenant);
    const data = expectWrapped(await get(session.id), 200);
    expect(data).to.deep.equal(session);
    expect(data).to.not.have.property('events');
  });

  it("omits items with include_items=false and adds events with include_events=true (query text 'true'/'false')", async () => {
    const { session } = await newSession(tenant);
    const withoutItems = expectWrapped(await get(session.id, { include_items: 'false' }), 200);
    expect(withoutItems).to.not.have.property('items');
    const withEvents = expectWrapped(await get(session.id, { include_events: 'true', include_items: 'true' }), 200);
    expect(withEvents.items).to.have.length(1);
    expect(withEvents.events.map((event: { event_type: string }) => event.event_type)).to.deep.equal([
      'customer_identified',
    ]);
  });

  it('rejects include_items or include_events that are not booleans with 400', async () => {
    const { session } = await newSession(tenant);
    expectFieldErrors(await get(session.id, { include_items: 'maybe' }), ['include_items']);
    expectFieldErrors(await get(session.id, { include_events: 'yes' }), ['include_events']);
  });

  it('reads a session whose expires_at has passed as expired', async () => {
    const { session } = await newSession(tenant, { expires_at: inFuture(HOUR) });
    await setStored(session.id, { expires_at: new Date(Date.now() - 1000) });
    expect(expectWrapped(await get(session.id), 200).status).to.equal('expired');
  });

  it("returns 404 for another merchant's session, an unknown id and a malformed id", async () => {
    const other = await createTenant();
    const { session } = await newSession(other);
    const res = await get(session.id);
    expectError(res, 404, 'not_found_error', 'RESOURCE_NOT_FOUND');
    expect(res.text).to.not.include(session.customer_email!);
    expectError(await get('cks_unknown0000000000000000'), 404, 'not_found_error');
    expectError(await get('not-an-id'), 404, 'not_found_error');
  });

  it('accepts an organization key with merchant_id; a sibling merchant gets 404', async () => {
    const { session } = await newSession(tenant);
    expect(
      expectWrapped(await get(session.id, { merchant_id: tenant.merchant_id }, tenant.organization_secret_key), 200).id,
    ).to.equal(session.id);
    const sibling = await addMerchant(tenant);
    expectError(await get(session.id, { merchant_id: sibling.merchantId }, tenant.organization_secret_key), 404);
  });

  it('refuses a key without checkout:read with 403', async () => {
    const { session } = await newSession(tenant);
    expectError(await get(session.id, {}, await keyWithScopes(tenant, ['checkout:write'])), 403, 'authorization_error');
  });
});
