/**
 * Nothing re-charges a final transaction: an attempt of a charge that is already decided (a re-run or reset
 * workflow, a retry long after the fact, under a new routing plan) returns the stored outcome and never calls a
 * provider. The real attempt activity runs against the stack's database and the sandbox.
 */
import { expect } from 'chai';
import { createActivities } from '../../activities';
import { vaultSettingsOf } from '../../activities/vault';
import { createTenant } from '../helpers/factories';
import { accountOf, ledger } from '../helpers/sandbox';
import { rows } from '../helpers/db';
import { stack } from '../helpers/stack';
import {
  cardCharge,
  cardToken,
  cascade,
  charge,
  providerReferenceOf,
  type CascadeConnector,
} from '../helpers/transactions';
import { CARDS } from '../helpers/vault';

describe('attemptCharge on a decided transaction', () => {
  const activities = () =>
    createActivities({ orm: stack().orm, rateLimitWindowSeconds: 60, vault: vaultSettingsOf(stack().config) });
  const attemptOn = (txId: string, merchantId: string, connector: CascadeConnector) =>
    activities().attemptCharge({
      transactionId: txId,
      merchantId,
      attemptNumber: 2,
      isFallback: true,
      attempt: { connectorId: connector.id, providerSlug: connector.slug, nodeId: null },
      idempotencyKey: `charge-${txId}:2`,
    });
  const callsAt = async (connector: CascadeConnector) =>
    ledger({ provider: 'provider_a', account: await accountOf('provider_a', connector.credentials) });

  it('an authorized transaction is not charged again on another connector: the stored approval, no provider call, no attempt row', async () => {
    const tenant = await createTenant();
    const [first, other] = await cascade(tenant, ['provider_a', 'provider_a']);
    const tx = (await charge(tenant, cardCharge(await cardToken(tenant)))).body.data;
    expect(tx.status).to.equal('authorized');
    const result = await attemptOn(tx.id, tenant.merchant_id, other);
    expect(result).to.deep.equal({
      outcome: 'approved',
      providerReference: await providerReferenceOf(tenant, tx.id),
      paymentInstructions: null,
    });
    expect(await callsAt(other)).to.deep.equal([]);
    expect((await callsAt(first)).filter((e) => e.operation === 'authorize')).to.have.length(1);
    const attempts = await rows('select attempt_number from transaction_attempts where transaction_id = ?', [tx.id]);
    expect(attempts.map((a) => a.attempt_number)).to.deep.equal([1]);
  });

  it('a failed transaction stays failed: the attempt stops the cascade (hard decline) without calling the provider', async () => {
    const tenant = await createTenant();
    const [, other] = await cascade(tenant, ['provider_a', 'provider_a']);
    const tx = (await charge(tenant, cardCharge(await cardToken(tenant, CARDS.stolen)))).body.data;
    expect(tx.status).to.equal('failed');
    expect((await attemptOn(tx.id, tenant.merchant_id, other)).outcome).to.equal('hard_decline');
    expect(await callsAt(other)).to.deep.equal([]);
  });
});
