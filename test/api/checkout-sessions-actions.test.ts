import { expect } from 'chai';
import { api } from '../helpers/http';
import {
  addMerchant,
  createTenant,
  customerInput,
  keyWithScopes,
  uniqueEmail,
  type Tenant,
} from '../helpers/factories';
import { expectError, expectFieldErrors, expectWrapped } from '../helpers/envelope';
import { HOUR, inFuture, newSession, setStored, type SessionData } from '../helpers/checkout';
import { stack } from '../helpers/stack';

async function eventTypes(tenant: Tenant, sessionId: string): Promise<string[]> {
  const res = await api.get(`/checkout-sessions/${sessionId}/events`, { key: tenant.merchant_secret_key });
  return res.body.data.map((event: { event_type: string }) => event.event_type);
}

describe('POST /api/v1/checkout-sessions/:id/identify', () => {
  let tenant: Tenant;
  let session: SessionData;
  beforeEach(async () => {
    tenant = await createTenant();
    session = (await newSession(tenant)).session;
    // The public create always names a buyer; initiated is the state of a session nobody has identified yet.
    await setStored(session.id, { status: 'initiated', customer_id: null });
  });

  const identify = (
    body: Record<string, unknown>,
    id = session.id,
    key = tenant.merchant_secret_key,
    query?: Record<string, string>,
  ) => api.post(`/checkout-sessions/${id}/identify`, { key, body, query });

  it('creates the customer from an email alone and moves initiated to customer_identified', async () => {
    const data = expectWrapped(
      await identify({ customer_email: 'New.Person@Example.com', customer_name: 'New Person' }),
      200,
    );
    expect(data).to.include({
      status: 'customer_identified',
      customer_email: 'new.person@example.com',
      customer_name: 'New Person',
    });
    expect(data.items).to.have.length(1);
    const customer = await api.get(`/customers/${data.customer_id}`, { key: tenant.merchant_secret_key });
    expect(expectWrapped(customer, 200)).to.include({
      email: 'new.person@example.com',
      name: 'New Person',
      phone: null,
    });
  });

  it("looks up the merchant's existing customer by email instead of creating another", async () => {
    const email = uniqueEmail();
    const existing = await api.post('/customers', {
      key: tenant.merchant_secret_key,
      body: customerInput({ email, name: 'Known' }),
    });
    const count = async () =>
      (
        await stack()
          .orm.em.fork()
          .execute('select count(*)::int as n from customers where merchant_id = ?', [tenant.merchant_id])
      )[0].n;
    const before = await count();
    const data = expectWrapped(await identify({ customer_email: email.toUpperCase() }), 200);
    // The session does not take the stored name: whoever typed the e-mail may not be the customer.
    expect(data).to.include({ customer_id: existing.body.data.id, customer_name: null });
    expect(await count()).to.equal(before);
  });

  it('identifies by customer_id; customer_name, when sent, is the name on the session', async () => {
    const customer = await api.post('/customers', {
      key: tenant.merchant_secret_key,
      body: customerInput({ name: 'Stored Name' }),
    });
    const data = expectWrapped(
      await identify({ customer_id: customer.body.data.id, customer_name: 'Checkout Name' }),
      200,
    );
    expect(data).to.include({
      customer_id: customer.body.data.id,
      customer_email: customer.body.data.email,
      customer_name: 'Checkout Name',
    });
  });

  it('records a customer_identified event', async () => {
    await identify({ customer_email: uniqueEmail() });
    expect(await eventTypes(tenant, session.id)).to.include('customer_identified');
  });

  it('may identify an already identified session again (the buyer corrected the email)', async () => {
    await identify({ customer_email: uniqueEmail() });
    const email = uniqueEmail();
    expect(expectWrapped(await identify({ customer_email: email }), 200).customer_email).to.equal(email);
  });

  it('requires customer_email when customer_id is absent, and refuses both at once (400)', async () => {
    expectFieldErrors(await identify({ customer_name: 'Only a name' }), ['customer_email']);
    const customer = await api.post('/customers', { key: tenant.merchant_secret_key, body: customerInput() });
    expectFieldErrors(await identify({ customer_id: customer.body.data.id, customer_email: uniqueEmail() }), [
      'customer_email',
    ]);
  });

  it("rejects another merchant's customer_id with 400 and a malformed email with 400", async () => {
    const other = await createTenant();
    const foreign = await api.post('/customers', { key: other.merchant_secret_key, body: customerInput() });
    expectFieldErrors(await identify({ customer_id: foreign.body.data.id }), ['customer_id']);
    expectFieldErrors(await identify({ customer_email: 'nope' }), ['customer_email']);
  });

  for (const status of ['abandoned', 'completed', 'expired', 'payment_pending']) {
    it(`rejects a session in status ${status} with 422 INVALID_STATE_TRANSITION and changes nothing`, async () => {
      await setStored(session.id, { status });
      expectError(
        await identify({ customer_email: uniqueEmail() }),
        422,
        'business_rule_error',
        'INVALID_STATE_TRANSITION',
      );
      const [row] = await stack()
        .orm.em.fork()
        .execute('select count(*)::int as n from customers where merchant_id = ?', [tenant.merchant_id]);
      expect(row.n).to.equal(1); // only the customer the session was created with
    });
  }

  it('rejects a session whose expires_at has passed with 422', async () => {
    await setStored(session.id, { expires_at: new Date(Date.now() - 1000) });
    expectError(
      await identify({ customer_email: uniqueEmail() }),
      422,
      'business_rule_error',
      'INVALID_STATE_TRANSITION',
    );
  });

  it("returns 404 for another merchant's session", async () => {
    const other = await createTenant();
    const foreign = await newSession(other);
    expectError(await identify({ customer_email: uniqueEmail() }, foreign.session.id), 404, 'not_found_error');
  });

  it('accepts an organization key with merchant_id (query or body)', async () => {
    const org = tenant.organization_secret_key;
    expectWrapped(
      await identify({ customer_email: uniqueEmail() }, session.id, org, { merchant_id: tenant.merchant_id }),
      200,
    );
    expectWrapped(
      await identify({ customer_email: uniqueEmail(), merchant_id: tenant.merchant_id }, session.id, org),
      200,
    );
    const sibling = await addMerchant(tenant);
    expectError(
      await identify({ customer_email: uniqueEmail() }, session.id, org, { merchant_id: sibling.merchantId }),
      404,
    );
  });

  it('refuses a key without checkout:write with 403', async () => {
    expectError(
      await identify({ customer_email: uniqueEmail() }, session.id, await keyWithScopes(tenant, ['checkout:read'])),
      403,
    );
  });
});

describe('POST /api/v1/checkout-sessions/:id/abandon', () => {
  let tenant: Tenant;
  let session: SessionData;
  beforeEach(async () => {
    tenant = await createTenant();
    session = (await newSession(tenant, { expires_at: inFuture(HOUR) })).session;
  });

  const abandon = (id = session.id, key = tenant.merchant_secret_key, query?: Record<string, string>) =>
    api.post(`/checkout-sessions/${id}/abandon`, { key, query });

  it('returns 200 with the session in status abandoned and records an abandoned event', async () => {
    const data = expectWrapped(await abandon(), 200);
    expect(data.status).to.equal('abandoned');
    expect(data.items).to.have.length(1);
    expect(await eventTypes(tenant, session.id)).to.deep.equal(['abandoned', 'customer_identified']);
  });

  for (const status of ['initiated', 'payment_pending', 'expired']) {
    it(`abandons a session in status ${status}`, async () => {
      await setStored(session.id, { status });
      expect(expectWrapped(await abandon(), 200).status).to.equal('abandoned');
    });
  }

  it('abandons a session whose expires_at has passed, which then reads as abandoned', async () => {
    await setStored(session.id, { expires_at: new Date(Date.now() - 1000) });
    expect(expectWrapped(await abandon(), 200).status).to.equal('abandoned');
  });

  it('refuses a completed (paid) session with 422 INVALID_STATE_TRANSITION', async () => {
    await setStored(session.id, { status: 'completed' });
    expectError(await abandon(), 422, 'business_rule_error', 'INVALID_STATE_TRANSITION');
  });

  it('answers 200 unchanged when the session is already abandoned (one event only)', async () => {
    const first = expectWrapped(await abandon(), 200);
    const again = expectWrapped(await abandon(), 200);
    expect(again.updated_at).to.equal(first.updated_at);
    expect((await eventTypes(tenant, session.id)).filter((type) => type === 'abandoned')).to.have.length(1);
  });

  it('takes no body (400 when one is sent)', async () => {
    const res = await api.post(`/checkout-sessions/${session.id}/abandon`, {
      key: tenant.merchant_secret_key,
      body: { reason: 'x' },
    });
    expectError(res, 400, 'validation_error');
  });

  it("returns 404 for another merchant's session and leaves it as it was", async () => {
    const other = await createTenant();
    const foreign = await newSession(other);
    expectError(await abandon(foreign.session.id), 404, 'not_found_error');
    const res = await api.get(`/checkout-sessions/${foreign.session.id}`, { key: other.merchant_secret_key });
    expect(res.body.data.status).to.equal('customer_identified');
  });

  it('accepts an organization key with merchant_id in the query, and refuses a key without checkout:write', async () => {
    expectWrapped(await abandon(session.id, tenant.organization_secret_key, { merchant_id: tenant.merchant_id }), 200);
    expectError(await abandon(session.id, await keyWithScopes(tenant, ['checkout:read'])), 403, 'authorization_error');
  });
});
