/**
 * A subscription is shown (API, Dashboard, its events) with the names of what it refers to: its customer, offer,
 * product and preferred connector. Rule: those names are read in one statement however many subscriptions are shown,
 * and only within the subscriptions' merchant.
 */
import { expect } from 'chai';
import { CustomerSchema, SubscriptionSchema } from '../../db/entities';
import { presentOne, resolveNames } from '../../domain/subscriptions/subscriptions.presenter';
import { stack } from '../helpers/stack';
import { subscribed } from '../helpers/subscriptions';
import { createCustomer } from '../helpers/vault';
import { statementsOf } from '../helpers/statements';

describe('Subscription names: one statement, within the merchant', () => {
  it("reads a subscription's customer, offer, product and connector names in one statement", async () => {
    const sub = await subscribed(new Date());
    const em = stack().orm.em.fork();
    const row = await em.findOneOrFail(SubscriptionSchema, { id: sub.state.subscriptionId });
    const { result, sql } = await statementsOf(em, () => presentOne(em, row));
    expect(sql, sql.join('\n')).to.have.length(1);
    const customer = await em.findOneOrFail(CustomerSchema, { id: sub.customerId });
    expect(result.customer_name).to.equal(customer.name);
    expect(result.customer_email).to.equal(customer.email);
    expect(result.offer_name).to.be.a('string').and.not.equal('');
    expect(result.product_name).to.be.a('string').and.not.equal('');
  });

  it('reads the names of a page of subscriptions in one statement', async () => {
    const first = await subscribed(new Date());
    const second = await subscribed(new Date(), {}, { tenant: first.tenant, connector: first.connector });
    const em = stack().orm.em.fork();
    const rows = await em.find(SubscriptionSchema, {
      id: { $in: [first.state.subscriptionId, second.state.subscriptionId] },
    });
    const { result, sql } = await statementsOf(em, () => resolveNames(em, rows));
    expect(sql).to.have.length(1);
    expect([...result.keys()].sort()).to.deep.equal([first.state.subscriptionId, second.state.subscriptionId].sort());
  });

  it("never shows another merchant's customer name, even if a row named it", async () => {
    const sub = await subscribed(new Date());
    const stranger = await subscribed(new Date());
    const strangersCustomer = await createCustomer(stranger.tenant);
    const em = stack().orm.em.fork();
    const row = await em.findOneOrFail(SubscriptionSchema, { id: sub.state.subscriptionId });
    // A row that names another merchant's customer (no API can write one): its names stay empty.
    row.customerId = strangersCustomer;
    const view = await presentOne(em, row);
    expect(view.customer_name).to.equal(null);
    expect(view.customer_email).to.equal(null);
  });
});
