/**
 * Each charge is a Temporal workflow an operator can find and read: id transaction-<tx id>, a one-line summary, and
 * the OrganizationId / MerchantId / CustomerId / PaymentMethod / TransactionStatus search attributes, the status
 * kept current as the transaction moves (also on the pix settlement workflow). Capture, void and refund workflows
 * carry the charge's OrganizationId, MerchantId and CustomerId and name the transaction in their summary.
 */
import { expect } from 'chai';
import { expectWrapped } from '../helpers/envelope';
import { api } from '../helpers/http';
import { createTenant, type Tenant } from '../helpers/factories';
import { control } from '../helpers/sandbox';
import { stack } from '../helpers/stack';
import { CARDS, createCustomer, saveCard } from '../helpers/vault';
import {
  cardCharge,
  cardToken,
  cascade,
  charge,
  override,
  providerReferenceOf,
  waitForTransaction,
} from '../helpers/transactions';
import { SEARCH_ATTRIBUTE_KEYS as SA } from '../../workflows/definitions';
import { transactionWorkflowId, settlementWorkflowId } from '../../workflows/transaction.shared';

const client = () => stack().api.deps.temporal.client;
const describeWorkflow = (workflowId: string) => client().workflow.getHandle(workflowId).describe();

/** Visibility is eventually consistent: the workflow ids a query lists once it lists any. */
async function listed(query: string): Promise<string[]> {
  for (let i = 0; i < 50; i += 1) {
    const ids: string[] = [];
    for await (const wf of client().workflow.list({ query })) ids.push(wf.workflowId);
    if (ids.length > 0) return ids;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return [];
}

describe('Charge workflows in the Temporal UI', () => {
  let tenant: Tenant;
  before(async () => {
    tenant = await createTenant();
  });

  it('a charge runs as transaction-<tx id> with a summary and its search attributes, TransactionStatus authorized at the end', async () => {
    await cascade(tenant, ['provider_a']);
    const customerId = await createCustomer(tenant);
    const instrument = await saveCard(tenant, customerId, CARDS.visa);
    const tx = expectWrapped(
      await charge(tenant, {
        ...cardCharge('x'),
        card_ciphertext_id: undefined,
        payment_instrument_id: instrument.paymentInstrumentId ?? instrument.id,
      }),
      201,
    );

    const description = await describeWorkflow(transactionWorkflowId(tx.id));
    expect(description.type).to.equal('transactionWorkflow');
    expect(await description.staticSummary()).to.equal(`Charge ${tx.id}: 1500 USD (minor units) by credit_card`);
    const attributes = description.typedSearchAttributes;
    expect(attributes.get(SA.OrganizationId)).to.equal(tenant.organization_id);
    expect(attributes.get(SA.MerchantId)).to.equal(tenant.merchant_id);
    expect(attributes.get(SA.CustomerId)).to.equal(customerId);
    expect(attributes.get(SA.PaymentMethod)).to.equal('credit_card');
    expect(attributes.get(SA.TransactionStatus)).to.equal('authorized');
    // An operator finds it by merchant and status.
    expect(
      await listed(
        `MerchantId = '${tenant.merchant_id}' AND TransactionStatus = 'authorized' AND CustomerId = '${customerId}'`,
      ),
    ).to.deep.equal([transactionWorkflowId(tx.id)]);
  });

  it("capture, void and refund workflows carry the charge's organization, merchant and customer, and name the transaction in their summary", async () => {
    const own = await createTenant();
    await cascade(own, ['provider_a']);
    const customerId = await createCustomer(own);
    const token = async () => cardToken(own);
    const held = expectWrapped(
      await charge(own, cardCharge(await token(), { capture: false, customer_id: customerId })),
      201,
    );
    const hold = expectWrapped(
      await charge(own, cardCharge(await token(), { capture: false, customer_id: customerId })),
      201,
    );
    const paid = expectWrapped(await charge(own, cardCharge(await token(), { customer_id: customerId })), 201);
    const key = { key: own.merchant_secret_key };
    expectWrapped(await api.post(`/transactions/${held.id}/capture`, { ...key, body: {} }), 200);
    expectWrapped(await api.post(`/transactions/${hold.id}/void`, { ...key, body: {} }), 200);
    const refund = expectWrapped(
      await api.post(`/transactions/${paid.id}/refunds`, { ...key, body: { amount: 500 } }),
      201,
    );

    // The customer's operations, found by the same attributes as their charges.
    const query = `CustomerId = '${customerId}' AND WorkflowType = 'transactionOperationWorkflow'`;
    let ids: string[] = [];
    for (let i = 0; i < 50 && ids.length < 3; i += 1) {
      ids = await listed(query);
      if (ids.length < 3) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(ids).to.have.length(3);
    const summaries: string[] = [];
    for (const id of ids) {
      const description = await describeWorkflow(id);
      const attributes = description.typedSearchAttributes;
      expect(attributes.get(SA.OrganizationId), id).to.equal(own.organization_id);
      expect(attributes.get(SA.MerchantId), id).to.equal(own.merchant_id);
      expect(attributes.get(SA.CustomerId), id).to.equal(customerId);
      summaries.push((await description.staticSummary()) ?? '');
    }
    expect(summaries.sort()).to.deep.equal(
      [`Capture of ${held.id}`, `Refund of ${paid.id}: 500 USD (minor units)`, `Void of ${hold.id}`].sort(),
    );
    expect(refund.transaction_id).to.equal(paid.id);
  });

  it('a declined charge ends with TransactionStatus failed', async () => {
    const other = await createTenant();
    const [connector] = await cascade(other, ['provider_a']);
    await override(connector, 'do_not_honor');
    const tx = expectWrapped(await charge(other, cardCharge(await cardToken(other), { capture: false })), 201);
    expect(tx.status).to.equal('failed');
    const description = await describeWorkflow(transactionWorkflowId(tx.id));
    expect(description.typedSearchAttributes.get(SA.TransactionStatus)).to.equal('failed');
    expect(await description.staticSummary()).to.equal(
      `Charge ${tx.id}: 1500 USD (minor units) by credit_card, authorize only`,
    );
  });

  it('a pix charge is pending on its charge workflow, and its settlement workflow carries the same attributes and then authorized', async () => {
    const pixTenant = await createTenant();
    await cascade(pixTenant, ['provider_b']);
    const tx = expectWrapped(
      await charge(pixTenant, {
        payment_method: 'pix',
        charge_type: 'payment',
        country: 'BR',
        amount: 4990,
        currency: 'BRL',
      }),
      201,
    );
    expect(
      (await describeWorkflow(transactionWorkflowId(tx.id))).typedSearchAttributes.get(SA.TransactionStatus),
    ).to.equal('pending');

    expect(
      (await control('POST', `/payments/${await providerReferenceOf(pixTenant, tx.id)}/settle`)).status,
    ).to.be.lessThan(300);
    expect((await waitForTransaction(pixTenant, tx.id, (t) => t.status !== 'pending')).status).to.equal('authorized');
    const settlement = client().workflow.getHandle(settlementWorkflowId(tx.id));
    await settlement.result();
    const attributes = (await settlement.describe()).typedSearchAttributes;
    expect(attributes.get(SA.MerchantId)).to.equal(pixTenant.merchant_id);
    expect(attributes.get(SA.PaymentMethod)).to.equal('pix');
    expect(attributes.get(SA.TransactionStatus)).to.equal('authorized');
  });
});
