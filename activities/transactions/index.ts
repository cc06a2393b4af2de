/**
 * Charge-cascade activities: thin steps that open a database transaction on their own connection and hand it to
 * the write paths of domain/transactions/transactions.attempt-writes.ts, call the provider and heartbeat. Each is
 * idempotent (a retried activity finds its rows and changes nothing twice). attemptCharge is the only one that
 * sees card data or credentials, and only between reading them and the adapter call.
 */
import { startAttemptWithSetup } from '../../db/repositories/transaction-attempt-reads.repository';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Orm } from '../../db/orm';
import { openCredentials } from '../../domain/connectors/connectors.secrets';
import { errors } from '../../domain/platform/errors';
import {
  decidedOutcome,
  finalizeTransaction,
  openTransaction,
  recordAttemptOutcome,
  settleAttemptWithoutAnswer,
  type FinalizeInput,
} from '../../domain/transactions/transactions.attempt-writes';
import { recurringReferenceOf } from '../../domain/subscriptions/subscriptions.renewal';
import type { Client } from '@temporalio/client';
import { heartbeatWhile, isUnusableAttemptSetup, resolveOutcome } from './provider-call';
import { authenticationOf, challengeWithoutWebsite, websiteRefusal } from './three-ds';
import { createUnknownResolutionActivities } from './unknown-resolution';
import { createAuthenticationActivities } from './authentication';
import { createPendingTransactionSweepActivities } from './pending-transaction-sweep';
import { attemptsOf, planAttempts } from '../../domain/routing/routing.attempt-plan';
import type { ChargeAttributes } from '../../domain/routing/routing.evaluate';
import { instrumentCardOf, tokenCardOf, type VaultSettings } from '../vault';
import type { AuthorizeRequest, CardData, ProviderResult } from '../../domain/connectors/connector';
import { renewalCardOnTestClock, testClockRefusal } from '../../domain/test-clocks/test-clocks.transactions';
import { transactionWorkflowId } from '../../workflows/transaction.shared';
import { isChallenge, unauthenticated } from '../../workflows/lib/three-ds';
import { supportsThreeDs } from '../../domain/connectors/registry';
import { countChargeAttempt } from '../../domain/platform/metrics';
import { annotateActiveSpan } from '../../domain/platform/tracing';
import {
  isCardMethod,
  type CascadePolicy,
  type AttemptInput,
  type AttemptResult,
  type Outcome,
  type TransactionInput,
  type PlannedAttempt,
} from '../../workflows/lib/transaction-types';

export type { FinalizeInput };

export interface TransactionDeps {
  orm: Orm;
  vault?: VaultSettings;
  /** For the pending-charge sweep, which looks at and starts workflows. */
  temporalClient?: Client;
}

/** A subscription's renewal on its saved card: merchant-initiated, so never authenticated (3-D Secure). */
const isRenewalOnSavedCard = (charge: { subscriptionId?: string | null; cardTokenId: string | null }) =>
  Boolean(charge.subscriptionId) && !charge.cardTokenId;

/** What routing reads of a charge. */
const routingAttributesOf = (input: TransactionInput & { randomDraw: number }): ChargeAttributes => ({
  paymentMethod: input.paymentMethod,
  currency: input.currency,
  amount: input.amount,
  cardBrand: input.cardBrand,
  binCountry: input.binCountry,
  // A saved card charged by the merchant on its own (merchant-initiated). A checkout paid with a saved card is not:
  // the buyer is there, choosing the card (customer-initiated).
  isRecurring: input.paymentInstrumentId !== null && input.cardTokenId === null && !input.checkoutSessionId,
  // The same rule the attempt sends the provider (merchantInitiated in attemptCharge): only a renewal is exempt.
  merchantInitiated: isRenewalOnSavedCard(input),
  installments: input.installments ?? 1,
  randomDraw: input.randomDraw,
});

export function createTransactionActivities({ orm, vault, temporalClient }: TransactionDeps) {
  const inTransaction = <T>(work: (em: EntityManager) => Promise<T>) => orm.em.fork().transactional(work);

  const activities = {
    /**
     * Opens the transaction (openTransaction) and plans its connectors with the routing engine in one step (run as a
     * local activity by the charge workflow): no Temporal round trip before the first provider call. The plan is made first so its explanation is
     * written with the transaction's own insert (no extra write); a retried step finds the transaction and re-uses
     * the plan stored with it. Nothing is planned when the token was taken.
     */
    async openAndPlanCharge(
      input: TransactionInput & { randomDraw: number },
    ): Promise<{ tokenClaimed: boolean; attempts: PlannedAttempt[]; cascade?: CascadePolicy | null }> {
      const plan = await planAttempts(orm.em.fork(), input.merchantId, routingAttributesOf(input), {
        customerId: input.customerId,
      });
      const { tokenClaimed, storedDecision } = await inTransaction((em) =>
        openTransaction(
          em,
          input,
          { decision: plan.decision, livemode: plan.livemode },
          transactionWorkflowId(input.transactionId),
        ),
      );
      if (!tokenClaimed) return { tokenClaimed, attempts: [] };
      const attempts = storedDecision ? attemptsOf(storedDecision) : plan.attempts;
      return { tokenClaimed, attempts, cascade: plan.cascade };
    },

    /**
     * One provider call: records the attempt as started, calls the adapter with the stable idempotency key, and
     * records its outcome. A retry after a crash replays at the provider (same key) instead of charging again. An
     * unknown outcome is looked up at the same provider first; if that cannot tell, the attempt stays `unknown`
     * (error_code provider_outcome_unknown) and the cascade stops — the reconciler settles it later.
     */
    async attemptCharge(input: AttemptInput): Promise<AttemptResult> {
      if (!vault) throw new Error('This worker was started without vault settings');
      const em = orm.em.fork();
      // One round trip: the attempt row, the transaction, the connector and the card (sealed until opened here).
      const setup = await startAttemptWithSetup(em, input);
      if (!setup) throw new Error(`Transaction ${input.transactionId} of merchant ${input.merchantId} not found`);
      const tx = setup.transaction;
      // A decided charge (a re-run workflow, a reset, a retry after the fact) never reaches a provider again: under
      // a new plan it could be another connector, which has never seen this key. Its stored outcome stands.
      if (tx.status !== 'pending') return decidedOutcome(tx.status, tx.providerReference);
      let result: ProviderResult;
      // A customer-initiated card payment can be authenticated (3-D Secure); a renewal on the stored card cannot.
      const merchantInitiated = isRenewalOnSavedCard(tx);
      const cardPayment = isCardMethod(tx.paymentMethod) && tx.chargeType === 'payment' && !merchantInitiated;
      const threeDsRequested = cardPayment && input.attempt.threeDs === true;
      try {
        const connector = setup.connector;
        // A deleted connector: the same 404 loadConnectorSecrets answers (an unusable attempt setup).
        if (!connector) throw errors.notFound('No such connector');
        // A test clock's customer never reaches a live connector (see domain/test-clocks).
        const refusal = tx.customerOnTestClock ? testClockRefusal(connector) : null;
        if (refusal) throw new RefusedBeforeCall(refusal);
        const noWebsite = threeDsRequested ? await websiteRefusal(em, tx.merchantId) : null;
        if (noWebsite) throw new RefusedBeforeCall(noWebsite);
        const credentials = openCredentials(vault.encryptionKeys, connector.credentialsEncrypted);
        let card: CardData | undefined;
        if (isCardMethod(tx.paymentMethod)) {
          card = tx.cardTokenId
            ? tokenCardOf(vault.encryptionKeys, tx.cardTokenId, setup.token)
            : instrumentCardOf(vault.encryptionKeys, tx.paymentInstrumentId!, setup.instrument);
          // Only past testClockRefusal: the connector is a test-mode one.
          if (merchantInitiated && tx.customerOnTestClock) {
            const charge = { merchantId: tx.merchantId, subscriptionId: tx.subscriptionId!, transactionId: tx.id };
            card = await renewalCardOnTestClock(em, charge, card);
          }
        }
        const adapter = vault.adapterFor(connector.providerSlug);
        const request: AuthorizeRequest = {
          amount: tx.amount,
          currency: tx.currency,
          paymentMethod: isCardMethod(tx.paymentMethod)
            ? 'card'
            : (tx.paymentMethod as AuthorizeRequest['paymentMethod']),
          card,
          capture: tx.capture,
          installments: tx.installments ?? undefined,
          reference: tx.id,
          // A subscription's renewal is merchant-initiated on the stored card (recurring/MIT).
          ...(tx.subscriptionId && !tx.cardTokenId
            ? { recurring: { networkTransactionId: await recurringReferenceOf(em, tx.subscriptionId) } }
            : {}),
          // Asked for or not, always with a way back: an issuer may challenge a charge that did not ask.
          ...(cardPayment ? { threeDs: { request: threeDsRequested, returnUrl: vault.threeDsReturnUrl(tx.id) } } : {}),
        };
        const call = {
          baseUrl: vault.providerBaseUrl(connector),
          credentials,
          idempotencyKey: input.idempotencyKey,
          timeoutMs: vault.providerTimeoutMs,
        };
        // A setup verification validates the card without billing it: the provider's zero-amount check.
        const verify = tx.chargeType === 'setup_verification' && card;
        result = await heartbeatWhile(async () =>
          resolveOutcome(
            adapter,
            call,
            { operation: verify ? 'verify' : 'authorize', reference: tx.id, capture: tx.capture },
            () =>
              verify
                ? adapter.verifyCard(call, { card: verify, currency: tx.currency, reference: tx.id })
                : adapter.authorize(call, request),
          ),
        );
        if (cardPayment && !threeDsRequested && isChallenge(result))
          result = await challengeWithoutWebsite(em, tx.merchantId, result, (providerReference) =>
            heartbeatWhile(() =>
              adapter.void({ ...call, idempotencyKey: `${call.idempotencyKey}:abandon` }, { providerReference }),
            ),
          );
      } catch (error) {
        // Only an unusable card or connector (deleted, token gone) is this attempt's failure. Anything else (the
        // database, the key ring) is thrown: Temporal retries the activity under the same key; it is never a decline.
        if (error instanceof RefusedBeforeCall) result = error.result;
        else if (!isUnusableAttemptSetup(error)) throw error;
        else
          result = {
            outcome: 'processing_error',
            providerReference: null,
            rawCode: 'attempt_setup_failed',
            rawMessage: (error as Error).name,
          };
      }
      // The attempt's 3-D Secure record: what an answer that authenticated or challenged says (three-ds.ts), else
      // that none ran.
      const keepsThreeDs = cardPayment && result.providerReference !== null;
      const authentication =
        keepsThreeDs && (isChallenge(result) || result.threeDs)
          ? authenticationOf(result, { requested: threeDsRequested, challengeMs: vault.threeDsChallengeMs })
          : null;
      if (authentication) result = authentication.answer;
      const threeDs =
        authentication?.stored ??
        (keepsThreeDs ? unauthenticated(threeDsRequested, supportsThreeDs(input.attempt.providerSlug)) : undefined);
      await recordAttemptOutcome(em, inTransaction, input, result, threeDs);
      observeChargeAttempt(input, tx.paymentMethod, result.outcome);
      return {
        outcome: result.outcome,
        providerReference: result.providerReference,
        paymentInstructions: result.paymentInstructions ?? null,
        rawCode: result.rawCode,
        ...(authentication?.nextAction ? { nextAction: authentication.nextAction } : {}),
      };
    },

    /**
     * An attempt whose activity failed on every try. If the attempt's outcome was written before the failure, that
     * outcome stands and is returned; otherwise the provider may or may not have charged under its idempotency key,
     * and the attempt is recorded (the row may not exist if the very first write failed) as unresolved: null.
     */
    async recordUnresolvedAttempt(input: AttemptInput): Promise<AttemptResult | null> {
      return settleAttemptWithoutAnswer(orm.em.fork(), input);
    },

    /**
     * The final (or pending) state after the cascade; idempotent through the state table and the move's key.
     */
    async finalizeTransaction(input: FinalizeInput): Promise<string | null> {
      return inTransaction((em) => finalizeTransaction(em, input));
    },
    ...createUnknownResolutionActivities({ orm, vault }),
    ...createAuthenticationActivities({ orm, vault }),
    ...createPendingTransactionSweepActivities({ orm, temporalClient }),
  };
  return activities;
}

/** An attempt refused by our own rules before any provider call (nothing was sent: safe to try the next one). */
class RefusedBeforeCall extends Error {
  constructor(readonly result: ProviderResult) {
    super(result.rawMessage ?? 'refused');
  }
}

/**
 * What a charge attempt tells operators: its counter (switchyard_charge_attempts_total) and the attributes of its
 * activity's span — ids, the attempt number and the normalised outcome; never the card, the credentials or the
 * buyer, which the attempt holds only between reading them and the adapter call.
 */
function observeChargeAttempt(input: AttemptInput, paymentMethod: string, outcome: Outcome): void {
  countChargeAttempt({
    provider: input.attempt.providerSlug,
    connector: input.attempt.connectorId,
    paymentMethod,
    outcome,
  });
  annotateActiveSpan({
    'switchyard.merchant_id': input.merchantId,
    'switchyard.transaction_id': input.transactionId,
    'switchyard.connector_id': input.attempt.connectorId,
    'switchyard.provider': input.attempt.providerSlug,
    'switchyard.payment_method': paymentMethod,
    'switchyard.attempt_number': input.attemptNumber,
    'switchyard.outcome': outcome,
  });
}
