/**
 * A guest checkout never shows the stored name of whoever owns a typed e-mail: anyone can type someone else's
 * e-mail into a storefront, so a checkout bound by e-mail (inline customer or identify by e-mail) carries the name
 * the buyer typed, or none, and the browser view shows neither the stored customer's name nor its id. A checkout
 * whose customer the merchant's server named by id shows that customer as stored.
 */
import { expect } from 'chai';
import { api } from '../helpers/http';
import { createTenant, customerInput, uniqueEmail, type Tenant } from '../helpers/factories';
import { newSession } from '../helpers/checkout';
import { openSession, publicHeaders } from '../helpers/vault';

const STORED_NAME = 'Victoria Secretname';

describe('A guest checkout never shows the stored name of whoever owns a typed e-mail', function () {
  this.timeout(60_000);
  let tenant: Tenant;
  let victim: { id: string; email: string };
  before(async () => {
    tenant = await createTenant();
  });
  beforeEach(async () => {
    const email = uniqueEmail('victim');
    const res = await api.post('/customers', {
      key: tenant.merchant_secret_key,
      body: customerInput({ email, name: STORED_NAME }),
    });
    expect(res.status, res.text).to.equal(201);
    victim = { id: res.body.data.id, email };
  });

  const browserView = async (checkoutSessionId: string) => {
    const session = await openSession(tenant, { checkoutSessionId });
    const res = await api.get('/sessions/checkout', {
      headers: publicHeaders(tenant.merchant_public_key, session.sessionId),
    });
    expect(res.status, res.text).to.equal(200);
    return res;
  };

  it("a guest checkout never shows the stored name of whoever owns a typed e-mail: an inline customer keeps the typed name; the browser sees neither the stored name nor the customer's id", async () => {
    const { session } = await newSession(tenant, {
      customer: customerInput({ email: victim.email, name: 'Mallory Attacker' }),
    });
    expect(session.customer_name).to.equal('Mallory Attacker');
    const view = await browserView(session.id);
    expect(view.body.checkout).to.include({
      customerEmail: victim.email,
      customerName: 'Mallory Attacker',
      customerId: null,
    });
    expect(view.text).to.not.include(STORED_NAME);
    expect(view.text).to.not.include(victim.id);
  });

  it('a guest checkout never shows the stored name of whoever owns a typed e-mail: identify by e-mail alone leaves the name empty', async () => {
    const { session } = await newSession(tenant);
    const identified = await api.post(`/checkout-sessions/${session.id}/identify`, {
      key: tenant.merchant_secret_key,
      body: { customer_email: victim.email },
    });
    expect(identified.status, identified.text).to.equal(200);
    expect(identified.body.data.customer_name).to.equal(null);
    const view = await browserView(session.id);
    expect(view.body.checkout).to.include({ customerEmail: victim.email, customerName: null, customerId: null });
    expect(view.text).to.not.include(STORED_NAME);
    expect(view.text).to.not.include(victim.id);
  });

  it("a checkout whose customer the merchant's server named by id shows that customer's stored name and id", async () => {
    const { session } = await newSession(tenant, { customer_id: victim.id });
    expect(session.customer_name).to.equal(STORED_NAME);
    const view = await browserView(session.id);
    expect(view.body.checkout).to.include({ customerId: victim.id, customerName: STORED_NAME });
  });
});
