/**
 * A provider call whose outcome no one could tell within the deadline (PROVIDER_OUTCOME_IN_DOUBT_DAYS after it was
 * sent) is escalated as in doubt, once: the merchant is told (transaction.in_doubt, the transaction as data.object)
 * and the transaction says so in failure_code / failure_message. At a provider with no read (Adyen) only its
 * notification, or a person with its dashboard, can tell what happened; asking it forever helps no one.
 * - A charge attempt (failed transaction, attempt provider_outcome_unknown): the attempt becomes
 *   provider_outcome_in_doubt, so the reconciler stops sending lookups or technical cancels; a renewal's subscription
 *   reads it and moves on (activities/subscriptions).
 * - A capture or void (the operation still owns the transaction): nothing moves and the owner is kept, so the
 *   provider's notification, whenever it comes, still finishes the operation, which clears the in-doubt mark.
 */
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { TransactionSchema, type Transaction } from '../../db/entities';
import { settleUnresolvedAttempt } from '../../db/repositories/transaction-attempts.repository';
import { UNRESOLVED_PROVIDER_CALL } from '../../workflows/lib/transaction-types';
import { recordEvent } from '../events/events.outbox';
import { presentTransactionHeader } from './transactions.presenter';

/** error_code of the attempt and failure_code of its failed transaction once a charge is in doubt. */
export const CHARGE_IN_DOUBT = 'provider_outcome_in_doubt';
/** failure_code of a transaction whose capture or void is in doubt (until the operation finishes). */
export const OPERATION_IN_DOUBT = 'operation_in_doubt';

const CHARGE_MESSAGE =
  'The provider never said whether it took this charge; check the payment in the provider’s dashboard';
const OPERATION_MESSAGE =
  'The provider never said whether it made this capture or void; check the payment in the provider’s dashboard';

/**
 * Escalates an unresolved charge attempt (inside the caller's database transaction); false when it is no longer
 * unresolved (settled, or escalated already).
 */
export async function escalateTransactionInDoubt(
  em: EntityManager,
  attempt: { transactionId: string; attemptNumber: number },
): Promise<boolean> {
  const tx = await lockTransaction(em, attempt.transactionId);
  if (!tx) return false;
  const verdict = { outcome: null, code: CHARGE_IN_DOUBT, message: CHARGE_MESSAGE, providerReference: null };
  if (!(await settleUnresolvedAttempt(em, attempt, verdict, UNRESOLVED_PROVIDER_CALL))) return false;
  // Expired and canceled charges keep their own reason; a failed one failed for this.
  if (tx.status === 'failed') Object.assign(tx, { failureCode: CHARGE_IN_DOUBT, failureMessage: CHARGE_MESSAGE });
  await inDoubt(em, tx);
  return true;
}

/**
 * Escalates the transaction's capture or void `operationId` while it still owns it (inside the caller's database
 * transaction); false when it does not, or was escalated already.
 */
export async function escalateOperationInDoubt(
  em: EntityManager,
  operation: { transactionId: string; operationId: string },
): Promise<boolean> {
  const tx = await lockTransaction(em, operation.transactionId);
  if (!tx || tx.pendingOperationId !== operation.operationId || tx.failureCode === OPERATION_IN_DOUBT) return false;
  Object.assign(tx, { failureCode: OPERATION_IN_DOUBT, failureMessage: OPERATION_MESSAGE });
  await inDoubt(em, tx);
  return true;
}

/** The operation finished: the transaction no longer carries its in-doubt mark (before the move loads the row). */
export async function clearOperationInDoubt(em: EntityManager, transactionId: string): Promise<void> {
  await em.nativeUpdate(
    TransactionSchema,
    { id: transactionId, failureCode: OPERATION_IN_DOUBT },
    { failureCode: null, failureMessage: null },
  );
}

const lockTransaction = (em: EntityManager, id: string) =>
  em.findOne(TransactionSchema, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE });

async function inDoubt(em: EntityManager, tx: Transaction): Promise<void> {
  tx.updatedAt = new Date();
  await em.flush();
  await recordEvent(em, {
    organizationId: tx.organizationId,
    merchantId: tx.merchantId,
    type: 'transaction.in_doubt',
    livemode: tx.livemode,
    object: presentTransactionHeader(tx),
  });
}
