/**
 * A charge's writes and reads cost round trips on every charge (docs/benchmarks.md, statements per charge): each rule
 * here names one step the charge takes in a single statement, and checks what that statement wrote or read.
 */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { recordAttemptOutcome } from '../../domain/transactions/transactions.attempt-writes';
import { transactionView } from '../../api/modules/transactions/transactions.service';
import {
  attemptsToPresent,
  transactionToPresent,
  transactionWithAttemptsToPresent,
} from '../../db/repositories/transactions.repository';
import { presentTransaction } from '../../domain/transactions/transactions.presenter';
import { transactionWorkflowId } from '../../workflows/transaction.shared';
import { SEARCH_ATTRIBUTE_KEYS } from '../../workflows/definitions';
import { api } from '../helpers/http';
import { createTenant, type Tenant } from '../helpers/factories';
import { stack } from '../helpers/stack';
import { cascade, type CascadeConnector } from '../helpers/transactions';
import { createCustomer, saveCard } from '../helpers/vault';
import { statementsOf } from '../helpers/statements';

describe('Charge: steps that take one statement or no write of their own', () => {
  let tenant: Tenant;
  let connector: CascadeConnector;
  let transactionId: string;

  before(async () => {
    tenant = await createTenant();
    [connector] = await cascade(tenant, ['provider_a']);
    const instrument = await saveCard(tenant, await createCustomer(tenant));
    const res = await api.post('/transactions', {
      key: tenant.merchant_secret_key,
      headers: { 'idempotency-key': randomUUID() },
      body: {
        payment_method: 'credit_card',
        charge_type: 'payment',
        country: 'US',
        amount: 1500,
        currency: 'USD',
        payment_instrument_id: instrument.paymentInstrumentId ?? instrument.id,
      },
    });
    expect(res.status, res.text).to.equal(201);
    expect(res.body.data.status).to.equal('authorized');
    transactionId = res.body.data.id;
  });

  it("records an attempt's answer and its 3-D Secure record in one statement", async () => {
    const em = stack().orm.em.fork();
    const inTransaction = <T>(work: (em: EntityManager) => Promise<T>) => em.fork().transactional(work);
    const attempt = {
      transactionId,
      merchantId: tenant.merchant_id,
      attemptNumber: 1,
      isFallback: false,
      attempt: { connectorId: connector.id, providerSlug: 'provider_a', nodeId: null },
      idempotencyKey: `transaction-${transactionId}:1`,
    };
    const threeDs = { requested: true, status: 'authenticated', version: '2.2.0', eci: '05', liability_shift: true };
    const { sql } = await statementsOf(em, () =>
      recordAttemptOutcome(
        em,
        inTransaction,
        attempt,
        { outcome: 'approved', providerReference: 'ref-1', rawCode: null, rawMessage: null },
        threeDs as never,
      ),
    );
    expect(sql).to.have.length(1);
    const attempts = await api.get(`/transactions/${transactionId}/attempts`, { key: tenant.merchant_secret_key });
    expect(attempts.status, attempts.text).to.equal(200);
    expect(attempts.body.data[0].three_ds).to.deep.equal(threeDs);
    expect(attempts.body.data[0].status).to.equal('success');
  });

  it('reads the transaction with its timeline to answer in one statement, within the caller merchant', async () => {
    const em = stack().orm.em.fork();
    const { result: view, sql } = await statementsOf(em, () => transactionView(em, tenant.merchant_id, transactionId));
    expect(sql).to.have.length(1);
    // The same presentation as from the two plain reads of db/reads.ts (the transaction, then its attempts).
    const transaction = (await transactionToPresent(em, tenant.merchant_id, transactionId))!;
    const expected = presentTransaction(transaction, await attemptsToPresent(em, transactionId));
    expect(view).to.deep.equal(expected);
    const both = await transactionWithAttemptsToPresent(em, tenant.merchant_id, transactionId);
    expect(both?.transaction).to.deep.equal(transaction);
    expect(both?.attempts).to.deep.equal(await attemptsToPresent(em, transactionId));
    expect(view.timeline).to.have.length(1);

    const other = await createTenant();
    const error = await transactionView(em, other.merchant_id, transactionId).catch((e: unknown) => e);
    expect((error as { status?: number }).status).to.equal(404);
  });

  it('keeps the search attributes the API started the charge with: its one visibility write is the final status', async () => {
    const handle = stack().api.deps.temporal.client.workflow.getHandle(transactionWorkflowId(transactionId));
    const history = await handle.fetchHistory();
    const upserts = history.events!.filter((event) => event.upsertWorkflowSearchAttributesEventAttributes);
    expect(upserts).to.have.length(1);
    const description = await handle.describe();
    expect(description.typedSearchAttributes.get(SEARCH_ATTRIBUTE_KEYS.TransactionStatus)).to.equal('authorized');
  });
});
