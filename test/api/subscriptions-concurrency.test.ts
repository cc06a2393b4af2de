/**
 * Operations sent at once through the Dashboard API on one subscription
 * (a double click, two tabs, two colleagues). The workflow applies one move at a time (FIFO lock), each against the
 * state the previous one left: a repeated operation is one move and the others are 422; transitions form one chain.
 */
import { expect } from 'chai';
import { startSubscriptionWorkflow } from '../../api/temporal/subscriptions';
import { createOffer } from '../helpers/catalog';
import { bearer, createMerchantUser, signIn } from '../helpers/dashboard';
import { expectError } from '../helpers/envelope';
import { api } from '../helpers/http';
import { stack } from '../helpers/stack';
import { subscribed, type Subscribed } from '../helpers/subscriptions';

async function runningWithStaff(): Promise<{ sub: Subscribed; headers: Record<string, string> }> {
  const sub = await subscribed(new Date());
  await startSubscriptionWorkflow(stack().api.deps.temporal.client, sub.state);
  const user = await createMerchantUser(sub.tenant.organization_id, [sub.tenant.merchant_id]);
  const { access_token: token } = await signIn('merchant', user);
  return { sub, headers: bearer(token as string, { 'x-merchant-id': sub.tenant.merchant_id }) };
}

describe('Subscription operations sent at once (Dashboard API, one subscription)', () => {
  it('three pause calls at once are one move: one 200, two 422 INVALID_STATE_TRANSITION, one pause transition', async () => {
    const { sub, headers } = await runningWithStaff();
    const path = `/merchant/subscriptions/${sub.state.subscriptionId}`;
    const answers = await Promise.all(
      [1, 2, 3].map(() => api.post(`${path}/pause`, { headers, body: { reason: 'holiday' } })),
    );
    const ok = answers.filter((res) => res.status === 200);
    expect(ok, answers.map((res) => res.text).join('\n')).to.have.length(1);
    for (const res of answers.filter((r) => r.status !== 200)) {
      expectError(res, 422, 'business_rule_error', 'INVALID_STATE_TRANSITION');
    }
    const transitions = (await api.get(`${path}/transitions`, { headers })).body.data as any[];
    expect(transitions.filter((t) => t.transition_type === 'pause')).to.have.length(1);
    expect((await api.get(path, { headers })).body.status).to.equal('paused');
  });

  it('pause, cancel now and change offer at once: the transitions form one chain and nothing follows the cancellation', async () => {
    const { sub, headers } = await runningWithStaff();
    const path = `/merchant/subscriptions/${sub.state.subscriptionId}`;
    const { offer: pro } = await createOffer(sub.tenant.merchant_id, {
      familyId: sub.familyId,
      prices: [{ currency: 'USD', amount: 1999, isDefault: true }],
    });
    const answers = await Promise.all([
      api.post(`${path}/pause`, { headers, body: {} }),
      api.post(`${path}/cancel`, { headers, body: { at_period_end: false } }),
      api.post(`${path}/change-offer`, { headers, body: { to_offer_id: pro.id } }),
    ]);
    for (const res of answers) expect([200, 422], res.text).to.include(res.status);
    expect(answers[1].status, 'cancel now is allowed from active and from paused').to.equal(200);
    // Newest first: reversed, each from_status is the previous to_status.
    const chain = ((await api.get(`${path}/transitions`, { headers })).body.data as any[]).reverse();
    for (let i = 1; i < chain.length; i++) {
      expect(chain[i].from_status, JSON.stringify(chain)).to.equal(chain[i - 1].to_status);
    }
    expect(chain[chain.length - 1]).to.deep.include({ transition_type: 'cancellation', to_status: 'cancelled' });
    const applied = answers.filter((res) => res.status === 200).length;
    expect(chain.length, 'one transition per accepted operation, after the creation').to.equal(1 + applied);
    expect((await api.get(path, { headers })).body.status).to.equal('cancelled');
  });
});
