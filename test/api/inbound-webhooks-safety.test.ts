/**
 * Inbound provider webhooks act only where they should: an inactive connector's are refused, a connector's
 * webhook reaches only its own refunds and transactions (never another connector's of the same merchant), and a
 * pix payment.succeeded for another amount than the charge's is recorded and refused, not applied.
 */
import { expect } from 'chai';
import { createHmac, randomUUID } from 'node:crypto';
import { createTenant, type Tenant } from '../helpers/factories';
import { rows } from '../helpers/connectors';
import { control } from '../helpers/sandbox';
import { stack } from '../helpers/stack';
import {
  cardCharge,
  cardToken,
  cascade,
  charge,
  providerReferenceOf,
  waitForTransaction,
  type CascadeConnector,
} from '../helpers/transactions';

/** A provider_a (Standard Webhooks) event, signed with the connector's own secret, POSTed to its webhook_url. */
async function sendProviderA(connector: CascadeConnector, type: string, object: Record<string, unknown>) {
  const id = `evt_${randomUUID().replace(/-/g, '')}`;
  const body = JSON.stringify({ id, type, created: Math.floor(Date.now() / 1000), data: { object } });
  const timestamp = String(Math.floor(Date.now() / 1000));
  const key = Buffer.from(connector.webhookSecret.replace(/^whsec_/, ''), 'base64');
  const signature = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');
  const response = await fetch(connector.webhookUrl, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'webhook-id': id,
      'webhook-timestamp': timestamp,
      'webhook-signature': `v1,${signature}`,
    },
    body,
  });
  return { status: response.status, body: (await response.json()) as any };
}

async function eventsOf(connector: CascadeConnector): Promise<number> {
  const [row] = await rows('select count(*)::int as n from provider_webhook_events where connector_id = ?', [
    connector.id,
  ]);
  return row.n;
}

/** A captured card charge on the first connector of a two-connector provider_a cascade. */
async function chargedOnFirst(tenant: Tenant, connectors: CascadeConnector[]) {
  const tx = (await charge(tenant, cardCharge(await cardToken(tenant)))).body.data;
  expect(tx.status).to.equal('authorized');
  const [row] = await rows('select connector_id from transactions where id = ?', [tx.id]);
  expect(row.connector_id).to.equal(connectors[0].id);
  return { tx, providerReference: await providerReferenceOf(tenant, tx.id) };
}

describe('Inbound webhooks: refused for an inactive connector', () => {
  it('answers 422 CONNECTOR_INACTIVE and records nothing, so the provider retries once it is active again', async () => {
    const tenant = await createTenant();
    const [connector] = await cascade(tenant, ['provider_a']);
    const { tx, providerReference } = await chargedOnFirst(tenant, [connector]);
    await stack()
      .orm.em.fork()
      .execute('update merchant_connectors set is_active = false where id = ?', [connector.id]);
    const dispute = {
      id: `dp_${randomUUID().slice(0, 8)}`,
      object: 'dispute',
      amount: tx.amount,
      currency: 'usd',
      payment_intent: providerReference,
      status: 'needs_response',
    };
    const refused = await sendProviderA(connector, 'charge.dispute.created', dispute);
    expect(refused.status).to.equal(422);
    expect(refused.body.error).to.include({ type: 'business_rule_error', code: 'CONNECTOR_INACTIVE' });
    expect(await eventsOf(connector)).to.equal(0);
    expect((await waitForTransaction(tenant, tx.id, () => true)).status).to.equal('authorized');

    // Active again, the same kind of event is applied (the refusal was the connector's state, nothing else).
    await stack().orm.em.fork().execute('update merchant_connectors set is_active = true where id = ?', [connector.id]);
    expect((await sendProviderA(connector, 'charge.dispute.created', dispute)).status).to.equal(200);
    expect((await waitForTransaction(tenant, tx.id, (t) => t.status === 'charged_back')).status).to.equal(
      'charged_back',
    );
  });
});

describe("Inbound webhooks: a connector's webhook reaches only its own refunds and transactions", () => {
  let tenant: Tenant;
  let connectors: CascadeConnector[];
  before(async () => {
    tenant = await createTenant();
    connectors = await cascade(tenant, ['provider_a', 'provider_a']);
  });

  it("does not settle another connector's refund named by its ref_ id", async () => {
    const { tx } = await chargedOnFirst(tenant, connectors);
    const refundId = `ref_${randomUUID().replace(/-/g, '').slice(0, 24)}`;
    await stack()
      .orm.em.fork()
      .execute(
        `insert into refunds (id, organization_id, merchant_id, transaction_id, amount, currency, status)
         values (?, ?, ?, ?, 500, 'USD', 'pending')`,
        [refundId, tenant.organization_id, tenant.merchant_id, tx.id],
      );
    const refund = (id: string) => ({
      id,
      object: 'refund',
      amount: 500,
      currency: 'usd',
      status: 'succeeded',
      payment_intent: 'pi_elsewhere',
      metadata: { reference: refundId },
    });
    const stranger = await sendProviderA(connectors[1], 'refund.updated', refund('re_other'));
    expect(stranger.status).to.equal(200);
    expect((await rows('select status from refunds where id = ?', [refundId]))[0].status).to.equal('pending');

    // The connector the charge went through does settle it (the event itself was good).
    expect((await sendProviderA(connectors[0], 'refund.updated', refund('re_own'))).status).to.equal(200);
    expect((await rows('select status from refunds where id = ?', [refundId]))[0].status).to.equal('succeeded');
  });

  it("does not charge back another connector's transaction named by its tx_ reference", async () => {
    const { tx } = await chargedOnFirst(tenant, connectors);
    const dispute = {
      id: `dp_${randomUUID().slice(0, 8)}`,
      object: 'dispute',
      amount: tx.amount,
      currency: 'usd',
      payment_intent: 'pi_not_ours',
      status: 'needs_response',
      metadata: { reference: tx.id },
    };
    expect((await sendProviderA(connectors[1], 'charge.dispute.created', dispute)).status).to.equal(200);
    expect((await waitForTransaction(tenant, tx.id, () => true)).status).to.equal('authorized');

    expect((await sendProviderA(connectors[0], 'charge.dispute.created', dispute)).status).to.equal(200);
    expect((await waitForTransaction(tenant, tx.id, (t) => t.status === 'charged_back')).status).to.equal(
      'charged_back',
    );
  });
});

describe('Inbound webhooks: a pix payment.succeeded for another amount', () => {
  it('is recorded (event row, merchant activity) and refused: the charge stays pending', async () => {
    const tenant = await createTenant();
    const [connector] = await cascade(tenant, ['provider_b']);
    const tx = (
      await charge(tenant, {
        payment_method: 'pix',
        charge_type: 'payment',
        country: 'BR',
        amount: 4990,
        currency: 'BRL',
      })
    ).body.data;
    expect(tx.status).to.equal('pending');
    const settled = await control('POST', `/payments/${await providerReferenceOf(tenant, tx.id)}/settle`, {
      amount: 100,
    });
    expect(settled.status, JSON.stringify(settled.body)).to.be.lessThan(300);

    let recorded: any[] = [];
    for (let tries = 0; tries < 75 && recorded.length === 0; tries += 1) {
      recorded = await rows(
        `select changes from merchant_activities where merchant_id = ? and action = 'transaction.provider_amount_mismatch'`,
        [tenant.merchant_id],
      );
      if (recorded.length === 0) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(recorded).to.have.length(1);
    expect(recorded[0].changes).to.include({
      transaction_id: tx.id,
      connector_id: connector.id,
      expected_amount: 4990,
      received_amount: 100,
      currency: 'BRL',
    });
    const events = await rows('select event_type, transaction_id from provider_webhook_events where connector_id = ?', [
      connector.id,
    ]);
    expect(events).to.deep.include({ event_type: 'payment.succeeded', transaction_id: tx.id });
    const after = await waitForTransaction(tenant, tx.id, () => true);
    expect(after).to.include({ status: 'pending', amount_captured: 0 });
  });
});
