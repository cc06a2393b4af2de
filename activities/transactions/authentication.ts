/**
 * The steps of a charge waiting for the buyer's 3-D Secure challenge (workflows/transaction-authentication.ts): tell
 * the merchant once (transaction.action_required), ask the provider how the challenge went (its read of the payment,
 * or its verdict on what the buyer's return carried; its payment notification where it answers neither), and at the
 * deadline give up — cancel the payment at the provider, so a challenge completed late cannot charge, and record the
 * attempt abandoned. Whatever the provider says is written on the attempt, so the charge's final state and its
 * attempt agree.
 */
import type { Orm } from '../../db/orm';
import { TransactionSchema } from '../../db/entities';
import { markChallengeAnnounced, readAttempt } from '../../db/repositories/transaction-attempts.repository';
import {
  readChallengedAttempt,
  type ChallengedAttempt,
} from '../../db/repositories/transaction-attempt-reads.repository';
import type {
  ConnectorAdapter,
  Outcome,
  ProviderCall,
  ProviderResult,
  ReturnParams,
} from '../../domain/connectors/connector';
import { result } from '../../domain/connectors/http';
import { recordEvent } from '../../domain/events/events.outbox';
import { recordAttemptFinding } from '../../domain/transactions/transactions.attempt-writes';
import { presentTransactionHeader } from '../../domain/transactions/transactions.presenter';
import { AUTHENTICATION_ABANDONED, nextActionOf } from '../../workflows/lib/three-ds';
import type { AuthenticationReturn } from '../../workflows/transaction.shared';
import type { VaultSettings } from '../vault';
import { attemptCallOf } from './attempt-call';
import { heartbeatWhile } from './provider-call';
import { decidedAuthentication } from './three-ds';

export interface ChallengeRef {
  transactionId: string;
  attemptNumber: number;
}

/** A look at the challenge, with what the buyer's return and the provider's notification said (the wait's signals). */
export type ChallengeLook = ChallengeRef & AuthenticationReturn;

/**
 * waiting: the buyer has not finished (or the provider could not be asked). answered: the attempt's outcome, now
 * recorded. decided: the transaction is no longer pending (nothing left to wait for).
 */
export type AuthenticationVerdict =
  | { status: 'answered'; outcome: Outcome; providerReference: string | null }
  | { status: 'decided'; transactionStatus: string };
export type AuthenticationCheck = { status: 'waiting' } | AuthenticationVerdict;

const WAITING = { status: 'waiting' } as const;
/** Outcomes that are no verdict: the payment is still being authenticated, or the read did not answer. */
const NO_VERDICT: ReadonlySet<Outcome> = new Set(['pending', 'unknown', 'network_error', 'processing_error']);

export function createAuthenticationActivities({ orm, vault }: { orm: Orm; vault?: VaultSettings }) {
  const settings = () => {
    if (!vault) throw new Error('This worker was started without vault settings');
    return vault;
  };

  /** The provider's answer for the attempt, recorded on it; waiting while the challenge is open. */
  async function check({
    returnParams,
    notified,
    ...ref
  }: ChallengeLook): Promise<AuthenticationVerdict | { status: 'waiting'; row: ChallengedAttempt }> {
    const em = orm.em.fork();
    const row = await readChallengedAttempt(em, ref);
    if (!row) throw new Error(`Attempt ${ref.attemptNumber} of ${ref.transactionId} not found`);
    if (row.transaction_status !== 'pending') return { status: 'decided', transactionStatus: row.transaction_status };
    if (row.three_ds?.status !== 'challenged') {
      // Recorded by an earlier try of this step: its answer stands.
      const recorded = await readAttempt(em, ref.transactionId, ref.attemptNumber);
      return {
        status: 'answered',
        outcome: recorded!.outcome as Outcome,
        providerReference: recorded!.providerReference,
      };
    }
    const asking = await attemptCallOf(em, settings(), {
      merchantId: row.merchant_id,
      connectorId: row.connector_id,
      workflowId: row.workflow_id,
      attemptNumber: ref.attemptNumber,
    });
    if (!asking) return { status: 'waiting', row };
    const reference = row.provider_reference;
    const asked = await heartbeatWhile(() => askProvider(asking, reference, returnParams));
    const found = NO_VERDICT.has(asked.outcome) ? notifiedVerdict(notified, reference) : asked;
    if (!found) return { status: 'waiting', row };
    await record(ref, row, found);
    return { status: 'answered', outcome: found.outcome, providerReference: found.providerReference };
  }

  async function record(ref: ChallengeRef, row: ChallengedAttempt, found: ProviderResult): Promise<void> {
    const em = orm.em.fork();
    // A provider that says nothing of the authentication itself: the buyer passed it when the payment went through.
    const approved = found.outcome === 'approved';
    const threeDs = found.threeDs ?? {
      status: approved ? ('authenticated' as const) : ('failed' as const),
      version: null,
      eci: null,
      liability_shift: approved,
    };
    const authentication = decidedAuthentication(found, threeDs, row.three_ds?.requested ?? false);
    await recordAttemptFinding(em, ref, authentication.answer, authentication.stored);
  }

  return {
    /** Records transaction.action_required once per challenge, with what the buyer must do. */
    async announceActionRequired(ref: ChallengeRef): Promise<void> {
      await orm.em.fork().transactional(async (em) => {
        const threeDs = await markChallengeAnnounced(em, ref);
        if (!threeDs) return;
        const tx = await em.findOneOrFail(TransactionSchema, { id: ref.transactionId });
        await recordEvent(em, {
          organizationId: tx.organizationId,
          merchantId: tx.merchantId,
          livemode: tx.livemode,
          type: 'transaction.action_required',
          object: { ...presentTransactionHeader(tx), next_action: nextActionOf(threeDs) },
        });
      });
    },

    async checkAuthentication(look: ChallengeLook): Promise<AuthenticationCheck> {
      const checked = await check(look);
      return checked.status === 'waiting' ? WAITING : verdictOf(checked);
    },

    /**
     * The deadline passed: one last look, then the payment is canceled at the provider (a challenge completed from
     * now on cannot charge) and the attempt is recorded abandoned. The charge is abandoned only once the provider
     * confirmed the cancel: a cancel it refuses (the buyer just finished, or is still in the challenge, or the
     * provider is down) is answered by reading the payment again and recording what it says; while the read says
     * the challenge is still open, this step fails and is retried (cancel, then read) until one of them decides.
     */
    async abandonAuthentication(look: ChallengeLook): Promise<AuthenticationVerdict> {
      const ref = { transactionId: look.transactionId, attemptNumber: look.attemptNumber };
      const last = await check(look);
      if (last.status !== 'waiting') return verdictOf(last);
      const { row } = last;
      const asking = await attemptCallOf(orm.em.fork(), settings(), {
        merchantId: row.merchant_id,
        connectorId: row.connector_id,
        workflowId: row.workflow_id,
        attemptNumber: ref.attemptNumber,
      });
      if (asking && row.provider_reference) {
        const reference = row.provider_reference;
        const call = { ...asking.call, idempotencyKey: `${asking.call.idempotencyKey}:abandon` };
        const canceled = await heartbeatWhile(() => asking.adapter.void(call, { providerReference: reference }));
        if (canceled.outcome !== 'approved') {
          const again = await check(look);
          if (again.status !== 'waiting') return verdictOf(again);
          throw new Error(
            `The provider did not cancel the payment of attempt ${ref.attemptNumber} of ${ref.transactionId} (${canceled.outcome}) and it still awaits its challenge`,
          );
        }
      }
      const abandoned = result('hard_decline', {
        providerReference: row.provider_reference,
        rawCode: AUTHENTICATION_ABANDONED,
        rawMessage: 'The buyer did not complete 3-D Secure authentication before it expired',
      });
      const em = orm.em.fork();
      await recordAttemptFinding(em, ref, abandoned, {
        requested: row.three_ds?.requested ?? false,
        status: 'abandoned',
        version: null,
        eci: null,
        liability_shift: false,
      });
      return { status: 'answered', outcome: 'hard_decline', providerReference: row.provider_reference };
    },
  };
}

/**
 * How the challenge ended, by the provider's own answer: the verdict the buyer's return carried to it, where it
 * decides only on that (Adyen's /payments/details), else its read of the payment. Unknown when it has neither.
 */
function askProvider(
  { adapter, call }: { adapter: ConnectorAdapter; call: ProviderCall },
  providerReference: string | null,
  returnParams: ReturnParams | undefined,
): Promise<ProviderResult> {
  if (adapter.completeAuthentication && returnParams)
    return adapter.completeAuthentication(call, { providerReference, returnParams });
  if (adapter.retrieve && providerReference) return adapter.retrieve(call, { providerReference });
  return Promise.resolve(result('unknown', { providerReference, rawCode: 'no_read_at_provider' }));
}

/**
 * The provider's authenticated payment notification as the verdict, where its own answer has none (Adyen without
 * the buyer's redirectResult: the buyer never came back). It says nothing of the authentication itself (record()
 * reads an approval as authenticated, a refusal as failed); null without one.
 */
function notifiedVerdict(
  notified: AuthenticationReturn['notified'],
  providerReference: string | null,
): ProviderResult | null {
  if (notified !== 'payment.succeeded' && notified !== 'payment.failed') return null;
  return result(notified === 'payment.succeeded' ? 'approved' : 'soft_decline', {
    providerReference,
    rawCode: notified,
    rawMessage: "The provider's payment notification",
  });
}

/** The verdict alone (the attempt's row stays in the activity: a workflow's history holds ids and outcomes only). */
const verdictOf = (checked: AuthenticationVerdict): AuthenticationVerdict =>
  checked.status === 'decided'
    ? { status: 'decided', transactionStatus: checked.transactionStatus }
    : { status: 'answered', outcome: checked.outcome, providerReference: checked.providerReference };
