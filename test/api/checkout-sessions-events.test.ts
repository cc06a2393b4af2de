import { expect } from 'chai';
import { api } from '../helpers/http';
import { addMerchant, createTenant, keyWithScopes, type Tenant } from '../helpers/factories';
import { expectError, expectFieldErrors, expectWrapped } from '../helpers/envelope';
import { newSession, setStored, type SessionData } from '../helpers/checkout';

const EVENT_FIELDS = [
  'id',
  'checkout_session_id',
  'event_type',
  'source_url',
  'utm_source',
  'utm_medium',
  'utm_campaign',
  'ip_address',
  'user_agent',
  'metadata',
  'created_at',
];

describe('Checkout session events', () => {
  let tenant: Tenant;
  let session: SessionData;
  beforeEach(async () => {
    tenant = await createTenant();
    session = (await newSession(tenant)).session;
  });

  const record = (
    body: Record<string, unknown>,
    options: { key?: string; headers?: Record<string, string>; id?: string } = {},
  ) =>
    api.post(`/checkout-sessions/${options.id ?? session.id}/events`, {
      key: options.key ?? tenant.merchant_secret_key,
      body,
      headers: options.headers,
    });
  const list = (query: Record<string, string | number> = {}, options: { key?: string; id?: string } = {}) =>
    api.get(`/checkout-sessions/${options.id ?? session.id}/events`, {
      key: options.key ?? tenant.merchant_secret_key,
      query,
    });

  describe('POST /api/v1/checkout-sessions/:id/events', () => {
    it('returns 201 with the event as sent', async () => {
      const body = {
        event_type: 'page_view',
        source_url: 'https://shop.example.com/checkout?step=1',
        utm_source: 'newsletter',
        utm_medium: 'email',
        utm_campaign: 'black-friday',
        ip_address: '203.0.113.7',
        user_agent: 'Mozilla/5.0 (Buyer)',
        metadata: { step: 1 },
      };
      const event = expectWrapped(await record(body), 201);
      expect(Object.keys(event)).to.deep.equal(EVENT_FIELDS);
      expect(event.id).to.match(/^cke_/);
      const { event_type, source_url, utm_source, utm_medium, utm_campaign, ip_address, user_agent, metadata } = event;
      expect({
        event_type,
        source_url,
        utm_source,
        utm_medium,
        utm_campaign,
        ip_address,
        user_agent,
        metadata,
      }).to.deep.equal(body);
      expect(event.checkout_session_id).to.equal(session.id);
    });

    it("takes ip_address and user_agent from the request when the body doesn't carry them, nulls elsewhere", async () => {
      const event = expectWrapped(
        await record({ event_type: 'checkout_started' }, { headers: { 'user-agent': 'MerchantServer/2.1' } }),
        201,
      );
      expect(event.user_agent).to.equal('MerchantServer/2.1');
      expect(event.ip_address)
        .to.be.a('string')
        .and.match(/127\.0\.0\.1|::1/);
      expect(event).to.include({
        source_url: null,
        utm_source: null,
        utm_medium: null,
        utm_campaign: null,
        metadata: null,
      });
    });

    it('rejects an ip_address that is not IPv4 or IPv6 with 400', async () => {
      expectFieldErrors(await record({ event_type: 'page_view', ip_address: '999.1.1.1' }), ['ip_address']);
    });

    it("accepts only the documented client event types; customer_identified and abandoned are the service's own (400)", async () => {
      for (const type of [
        'page_view',
        'checkout_started',
        'customer_info_entered',
        'payment_method_selected',
        'payment_started',
        'payment_failed',
        'custom',
      ]) {
        expectWrapped(await record({ event_type: type }), 201);
      }
      for (const type of ['customer_identified', 'abandoned', 'clicked_buy', '']) {
        expectFieldErrors(await record({ event_type: type }), ['event_type']);
      }
    });

    it('rejects a missing event_type, a source_url that is not a URL, oversized fields and unknown fields with 400', async () => {
      expectFieldErrors(await record({}), ['event_type']);
      expectFieldErrors(await record({ event_type: 'page_view', source_url: 'not a url' }), ['source_url']);
      expectFieldErrors(await record({ event_type: 'page_view', utm_source: 'x'.repeat(256) }), ['utm_source']);
      expectFieldErrors(await record({ event_type: 'page_view', metadata: { blob: 'x'.repeat(5 * 1024) } }), [
        'metadata',
      ]);
      expectFieldErrors(await record({ event_type: 'page_view', referrer: 'x' }), ['referrer']);
    });

    it('records events in any state, including after the session was abandoned', async () => {
      await api.post(`/checkout-sessions/${session.id}/abandon`, { key: tenant.merchant_secret_key });
      expectWrapped(await record({ event_type: 'page_view' }), 201);
      await setStored(session.id, { status: 'completed' });
      expectWrapped(await record({ event_type: 'page_view' }), 201);
    });

    it('replays an idempotent record with 200 and records one event', async () => {
      const headers = { 'Idempotency-Key': `event-${Date.now()}` };
      const first = await record({ event_type: 'payment_started' }, { headers });
      const again = await record({ event_type: 'payment_started' }, { headers });
      expect([first.status, again.status]).to.deep.equal([201, 200]);
      expect(again.body.data).to.deep.equal(first.body.data);
      expect((await list({ event_type: 'payment_started' })).body.meta.pagination.total).to.equal(1);
    });

    it("returns 404 for another merchant's session", async () => {
      const foreign = await newSession(await createTenant());
      expectError(await record({ event_type: 'page_view' }, { id: foreign.session.id }), 404, 'not_found_error');
    });

    it('accepts an organization key with merchant_id in the body, and refuses a key without checkout:write', async () => {
      expectWrapped(
        await record(
          { event_type: 'page_view', merchant_id: tenant.merchant_id },
          { key: tenant.organization_secret_key },
        ),
        201,
      );
      expectError(
        await record({ event_type: 'page_view' }, { key: await keyWithScopes(tenant, ['checkout:read']) }),
        403,
      );
    });
  });

  describe('GET /api/v1/checkout-sessions/:id/events', () => {
    it("lists the session's events newest first with meta.pagination, including those the service recorded", async () => {
      const view = expectWrapped(await record({ event_type: 'page_view' }), 201);
      const started = expectWrapped(await record({ event_type: 'checkout_started' }), 201);
      const res = await list();
      const data = expectWrapped(res, 200, { list: true });
      expect(data.map((event: { id: string }) => event.id).slice(0, 2)).to.deep.equal([started.id, view.id]);
      expect(data.map((event: { event_type: string }) => event.event_type)).to.deep.equal([
        'checkout_started',
        'page_view',
        'customer_identified',
      ]);
      expect(res.body.meta.pagination).to.deep.equal({
        page: 1,
        limit: 20,
        total: 3,
        total_pages: 1,
        has_next: false,
        has_prev: false,
      });
    });

    it('pages and filters by event_type (several values)', async () => {
      await record({ event_type: 'page_view' });
      await record({ event_type: 'payment_failed' });
      await record({ event_type: 'page_view' });
      const page = await list({ limit: 2, page: 2 });
      expect(page.body.meta.pagination).to.include({ total: 4, total_pages: 2, has_prev: true });
      const filtered = await list({ event_type: 'payment_failed,customer_identified' });
      expect(filtered.body.data.map((event: { event_type: string }) => event.event_type)).to.deep.equal([
        'payment_failed',
        'customer_identified',
      ]);
      expectFieldErrors(await list({ event_type: 'nope' }), ['event_type']);
    });

    it('matches the events embedded by GET /checkout-sessions/:id?include_events=true', async () => {
      await record({ event_type: 'page_view' });
      const embedded = expectWrapped(
        await api.get(`/checkout-sessions/${session.id}`, {
          key: tenant.merchant_secret_key,
          query: { include_events: 'true' },
        }),
        200,
      );
      expect(embedded.events).to.deep.equal((await list()).body.data);
    });

    it("returns 404 for another merchant's session; an organization key needs merchant_id; checkout:write alone gets 403", async () => {
      const foreign = await newSession(await createTenant());
      expectError(await list({}, { id: foreign.session.id }), 404, 'not_found_error');
      expectWrapped(await list({ merchant_id: tenant.merchant_id }, { key: tenant.organization_secret_key }), 200, {
        list: true,
      });
      const sibling = await addMerchant(tenant);
      expectError(await list({ merchant_id: sibling.merchantId }, { key: tenant.organization_secret_key }), 404);
      expectError(await list({}, { key: await keyWithScopes(tenant, ['checkout:write']) }), 403);
    });
  });
});
