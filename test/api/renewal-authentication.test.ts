/**
 * The renewal authentication link on the real stack, driven by a test clock: a trial on the 4000 0027 6000 3184
 * card converts merchant-initiated, the issuer demands authentication, the customer is e-mailed the link. The link's
 * page starts nothing on GET (mail scanners open links), starts one on-session charge on POST and sends the browser
 * to the challenge; it is single-use, and a token altered to name another subscription is refused. Passed, the
 * renewal is paid and the subscription active again on its own calendar.
 */
import { expect } from 'chai';
import { createTenant, giveWebsite, type Tenant } from '../helpers/factories';
import { sellableOffer } from '../helpers/checkout';
import { cascade } from '../helpers/transactions';
import { waitForMail } from '../helpers/mail';
import { stack } from '../helpers/stack';
import { CustomerSchema } from '../../db/entities';
import { advance, createClock, subscribeOnClock, subscriptionOf } from '../helpers/test-clocks';

const START = '2027-03-01T10:00:00.000Z';
const AFTER_TRIAL = '2027-03-15T12:00:00.000Z';
const AUTHENTICATE_EVERY_CHARGE = { number: '4000002760003184', cvc: '123', brand: 'visa' };

const post = (url: string) => fetch(url, { method: 'POST', redirect: 'manual' });

describe('renewal authentication link (hosted page)', () => {
  let tenant: Tenant;
  let sub: any;
  let link: string;
  let clockId: string;

  before(async function () {
    this.timeout(180_000);
    tenant = await createTenant();
    // The customer's charge is challenged: 3-D Secure needs the merchant's website, an issuer's challenge too.
    await giveWebsite(tenant);
    await cascade(tenant, ['provider_a'], { webhooks: false });
    const clock = await createClock(tenant, START);
    clockId = clock.id;
    const { offer } = await sellableOffer(tenant, { freeTrial: true, trialDays: 14 });
    const subscribed = await subscribeOnClock(tenant, clock.id, offer.id, { card: AUTHENTICATE_EVERY_CHARGE });
    expect(subscribed.sub.status).to.equal('trialing');
    await advance(tenant, clock.id, AFTER_TRIAL);
    sub = await subscriptionOf(tenant, subscribed.sub.id);
    expect(sub.status).to.equal('dunning');
    const customer = await stack().orm.em.fork().findOneOrFail(CustomerSchema, { id: subscribed.customerId });
    const [mail] = await waitForMail(customer.email!);
    link = /https?:\/\/\S+renewal-authentication\?token=\S+/.exec(mail.text)![0];
  });

  it('GET shows a confirm page and starts nothing; the page is not cached and sends no Referer', async () => {
    const page = await fetch(link);
    expect(page.status).to.equal(200);
    expect(page.headers.get('cache-control')).to.equal('no-store');
    expect(page.headers.get('referrer-policy')).to.equal('no-referrer');
    expect(await page.text()).to.include('<form method="post">');
  });

  it('a token altered to name another subscription, or not sealed by us, is refused (404) and starts nothing', async () => {
    const token = new URL(link).searchParams.get('token')!;
    const [, linkId, mac] = token.split('.');
    const other = new URL(link);
    other.searchParams.set('token', `sub_someoneElse.${linkId}.${mac}`);
    expect((await post(other.toString())).status).to.equal(404);
    other.searchParams.set('token', 'not-a-token');
    expect((await post(other.toString())).status).to.equal(404);
  });

  it('POST starts the customer charge and redirects to its challenge; the link is single-use; passed, the renewal is paid', async function () {
    this.timeout(180_000);
    const first = await post(link);
    expect(first.status, await first.clone().text()).to.equal(303);
    const challenge = first.headers.get('location')!;
    expect(challenge).to.match(/\/_sandbox\/challenge\/pi_/);
    const again = await post(link);
    expect(again.status).to.equal(410);
    // The customer passes the challenge; the browser follows the provider back through our return endpoint.
    let res = await fetch(challenge, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'outcome=authenticated',
      redirect: 'manual',
    });
    while (res.status === 303) res = await fetch(res.headers.get('location')!, { redirect: 'manual' });
    expect(res.status).to.equal(200);
    // The subscription reads its customer's charge at its next check, a minute later on the clock.
    await advance(tenant, clockId, '2027-03-15T12:10:00.000Z');
    const paid = await subscriptionOf(tenant, sub.id);
    expect([paid.status, paid.cycles_completed, paid.current_period_start]).to.deep.equal(['active', 1, sub.trial_end]);
  });
});
