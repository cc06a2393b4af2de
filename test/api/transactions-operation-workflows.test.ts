/**
 * Operators in the Temporal UI: a capture, void or refund workflow names its transaction in its
 * id (`<kind>-<tx id>-<operation id>`) and carries the charge's OrganizationId, MerchantId, CustomerId and the
 * TransactionId search attribute, so `TransactionId = "<tx id>"` lists the charge with everything done to it, and
 * the newest of those workflows carries the transaction's current TransactionStatus.
 */
import { expect } from 'chai';
import type { WorkflowExecutionInfo } from '@temporalio/client';
import { expectWrapped } from '../helpers/envelope';
import { api } from '../helpers/http';
import { createTenant } from '../helpers/factories';
import { stack } from '../helpers/stack';
import { createCustomer } from '../helpers/vault';
import { cardCharge, cardToken, cascade, charge } from '../helpers/transactions';
import { SEARCH_ATTRIBUTE_KEYS as SA } from '../../workflows/definitions';
import { transactionWorkflowId } from '../../workflows/transaction.shared';

const client = () => stack().api.deps.temporal.client;

/** The workflows `TransactionId = "<id>"` lists, newest first, once it lists `count` (visibility is eventual). */
async function workflowsOf(transactionId: string, count: number): Promise<WorkflowExecutionInfo[]> {
  for (;;) {
    const found: WorkflowExecutionInfo[] = [];
    for await (const wf of client().workflow.list({ query: `TransactionId = "${transactionId}"` })) found.push(wf);
    if (found.length >= count) return found.sort((a, b) => b.startTime.getTime() - a.startTime.getTime());
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('Operation workflows are found by their transaction in the Temporal UI', () => {
  it('a capture is found by TransactionId, names the transaction in its workflow id and carries the charge attributes and the status after it', async () => {
    const tenant = await createTenant();
    await cascade(tenant, ['provider_a']);
    const customerId = await createCustomer(tenant);
    const tx = expectWrapped(
      await charge(tenant, cardCharge(await cardToken(tenant), { capture: false, customer_id: customerId })),
      201,
    );
    expect(tx.status).to.equal('pre_authorized');
    const captured = expectWrapped(
      await api.post(`/transactions/${tx.id}/capture`, { key: tenant.merchant_secret_key, body: {} }),
      200,
    );

    const [newest, oldest] = await workflowsOf(tx.id, 2);
    expect(oldest.workflowId).to.equal(transactionWorkflowId(tx.id));
    expect(newest.type).to.equal('transactionOperationWorkflow');
    expect(newest.workflowId).to.match(new RegExp(`^capture-${tx.id}-.+`));
    const attributes = (await client().workflow.getHandle(newest.workflowId).describe()).typedSearchAttributes;
    expect(attributes.get(SA.TransactionId)).to.deep.equal([tx.id]);
    expect(attributes.get(SA.OrganizationId)).to.equal(tenant.organization_id);
    expect(attributes.get(SA.MerchantId)).to.equal(tenant.merchant_id);
    expect(attributes.get(SA.CustomerId)).to.equal(customerId);
    // The transaction's current status, as the API says it, is the newest workflow's TransactionStatus.
    expect(attributes.get(SA.TransactionStatus)).to.equal(captured.status);
    expect(captured.status).to.equal('authorized');
  });

  it('a refund workflow is refund-<tx id>-<refund id> and listed with its charge by TransactionId', async () => {
    const tenant = await createTenant();
    await cascade(tenant, ['provider_a']);
    const tx = expectWrapped(await charge(tenant, cardCharge(await cardToken(tenant))), 201);
    const refund = expectWrapped(
      await api.post(`/transactions/${tx.id}/refunds`, { key: tenant.merchant_secret_key, body: { amount: 500 } }),
      201,
    );
    const ids = (await workflowsOf(tx.id, 2)).map((wf) => wf.workflowId);
    expect(ids).to.include.members([transactionWorkflowId(tx.id), `refund-${tx.id}-${refund.id}`]);
  });
});
