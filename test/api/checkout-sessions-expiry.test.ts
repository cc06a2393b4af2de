/** The API starts (and signals) the durable expiry workflow; the real worker then expires the session. */
import { expect } from 'chai';
import { WorkflowNotFoundError } from '@temporalio/client';
import { workflowMetadataQuery } from '@temporalio/workflow';
import { api } from '../helpers/http';
import { createTenant, type Tenant } from '../helpers/factories';
import { expectWrapped } from '../helpers/envelope';
import { HOUR, inFuture, newSession, storedStatus } from '../helpers/checkout';
import { stack } from '../helpers/stack';
import { SEARCH_ATTRIBUTE_KEYS, TASK_QUEUES } from '../../workflows/definitions';

const MERCHANT_ID = SEARCH_ATTRIBUTE_KEYS.MerchantId;
const handleOf = (sessionId: string) =>
  stack().api.deps.temporal.client.workflow.getHandle(`checkout-expiry-${sessionId}`);

/**
 * The signals the workflow has received, every one the API sent before the call included. A signal that arrives
 * while the worker holds a workflow task is kept aside by the server and enters the history only when that task
 * ends, so a history read right after a PATCH can miss the PATCH's signal. A query is answered only once the worker
 * has seen every event accepted before it (Temporal's queries are strongly consistent): after it, the history
 * holds them all, and a signal sent in error would be there too.
 */
async function signalsReceived(sessionId: string): Promise<string[]> {
  await handleOf(sessionId).query(workflowMetadataQuery);
  const history = await handleOf(sessionId).fetchHistory();
  return (history.events ?? [])
    .filter((event) => event.workflowExecutionSignaledEventAttributes)
    .map((event) => event.workflowExecutionSignaledEventAttributes!.signalName as string);
}

describe('Checkout session expiry workflow (started by the API)', () => {
  let tenant: Tenant;
  beforeEach(async () => {
    tenant = await createTenant();
  });

  it('starts checkoutExpiryWorkflow on the payments task queue, findable by MerchantId, when a session is created with expires_at', async () => {
    const { session } = await newSession(tenant, { expires_at: inFuture(2 * HOUR) });
    const description = await handleOf(session.id).describe();
    expect(description.status.name).to.equal('RUNNING');
    expect(description.type).to.equal('checkoutExpiryWorkflow');
    expect(description.taskQueue).to.equal(TASK_QUEUES.payments);
    expect(description.typedSearchAttributes.get(MERCHANT_ID)).to.equal(tenant.merchant_id);
  });

  it('starts no workflow for a session without expires_at', async () => {
    const { session } = await newSession(tenant);
    let error: unknown;
    try {
      await handleOf(session.id).describe();
    } catch (thrown) {
      error = thrown;
    }
    expect(error).to.be.instanceOf(WorkflowNotFoundError);
  });

  it('sends the running workflow nothing when PATCH pushes expires_at out: it re-reads the row at its deadline', async () => {
    const { session } = await newSession(tenant, { expires_at: inFuture(2 * HOUR) });
    expectWrapped(
      await api.patch(`/checkout-sessions/${session.id}`, {
        key: tenant.merchant_secret_key,
        body: { expires_at: inFuture(5 * HOUR) },
      }),
      200,
    );
    // The one signal is the start's (signalWithStart).
    expect(await signalsReceived(session.id)).to.deep.equal(['expiresAtChanged']);
    expect((await handleOf(session.id).describe()).status.name).to.equal('RUNNING');
  });

  it('starts a workflow when PATCH sets expires_at on a session that had none', async () => {
    const { session } = await newSession(tenant);
    expectWrapped(
      await api.patch(`/checkout-sessions/${session.id}`, {
        key: tenant.merchant_secret_key,
        body: { expires_at: inFuture(HOUR) },
      }),
      200,
    );
    expect((await handleOf(session.id).describe()).status.name).to.equal('RUNNING');
  });

  it('expires the stored session through the real worker once expires_at passes', async function () {
    this.timeout(20_000);
    const { session } = await newSession(tenant, { expires_at: inFuture(1500) });
    expect(await handleOf(session.id).result()).to.equal('expired');
    expect(await storedStatus(session.id)).to.equal('expired');
  });
});
