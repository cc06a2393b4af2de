/**
 * Settlement without a webhook: the settlement workflow asks the provider how a pending payment (pix, boleto, a
 * card held for review) stands now, by its provider reference. Webhooks make the outcome faster; this makes it
 * certain. Reads only: nothing is sent to the provider that could move money.
 */
import type { Orm } from '../../db/orm';
import { TransactionSchema } from '../../db/entities';
import { readRecurrence } from '../../db/repositories/transactions.repository';
import { loadConnectorSecrets } from '../../domain/connectors/connectors.secrets';
import type { ProviderResult } from '../../domain/connectors/connector';
import { recordLateDecline } from '../../domain/transactions/transactions.late-declines';
import type { VaultSettings } from '../vault';
import { heartbeatWhile, isUnusableAttemptSetup } from './provider-call';

/**
 * paid / failed / expired: the provider's verdict (expired: it canceled or let the payment lapse unpaid). pending:
 * not decided yet. unknown: no answer. unsupported: no read exists.
 */
export type PendingChargeCheck = 'paid' | 'failed' | 'expired' | 'pending' | 'unknown' | 'unsupported';

/**
 * The providers' words for a pending payment that ended without being paid or declined (Stripe's PaymentIntent
 * `canceled`, Mercado Pago's `cancelled`/`expired`, Checkout.com's `Canceled`/`Expired`), as the adapters keep them
 * in rawCode/rawMessage: an expiry, as Stripe and Adyen call it, not a failure (docs/api-decisions.md).
 */
const LAPSED = /^(canceled|cancelled|expired)$/i;
const lapsedUnpaid = (result: ProviderResult) =>
  [result.rawCode, result.rawMessage].some((word) => word !== null && LAPSED.test(word));

export function createSettlementActivities({ orm, vault }: { orm: Orm; vault?: VaultSettings }) {
  return {
    /**
     * What a settled (authorized) charge sets off: the first charge of a recurring offer starts its subscription;
     * a renewal's charge tells its subscription workflow.
     */
    async settledChargeFollowUp(input: {
      transactionId: string;
    }): Promise<{ firstRecurringCharge: boolean; renewalOf: string | null }> {
      const row = await readRecurrence(orm.em.fork(), input.transactionId);
      if (!row) return { firstRecurringCharge: false, renewalOf: null };
      const first = row.recurrence === 'initial';
      return { firstRecurringCharge: first, renewalOf: !first ? row.subscription_id : null };
    },

    async checkPendingCharge(input: { transactionId: string }): Promise<PendingChargeCheck> {
      if (!vault) throw new Error('This worker was started without vault settings');
      const em = orm.em.fork();
      const tx = await em.findOne(TransactionSchema, { id: input.transactionId });
      if (!tx || tx.status !== 'pending' || !tx.connectorId || !tx.providerReference) return 'unknown';
      let secrets: Awaited<ReturnType<typeof loadConnectorSecrets>>;
      try {
        secrets = await loadConnectorSecrets(em, vault.encryptionKeys, tx.merchantId, tx.connectorId);
      } catch (error) {
        // A deleted connector cannot be asked; its webhook (or the expiry) still settles the payment.
        if (isUnusableAttemptSetup(error)) return 'unsupported';
        throw error;
      }
      const adapter = vault.adapterFor(secrets.connector.providerSlug);
      if (!adapter.retrieve) return 'unsupported';
      const call = {
        baseUrl: vault.providerBaseUrl(secrets.connector),
        credentials: secrets.credentials,
        idempotencyKey: `${tx.workflowId}:retrieve`,
        timeoutMs: vault.providerTimeoutMs,
      };
      const providerReference = tx.providerReference;
      const now = await heartbeatWhile(() => adapter.retrieve!(call, { providerReference }));
      if (now.outcome === 'approved') return 'paid';
      if (now.outcome === 'pending') return 'pending';
      if (now.outcome === 'soft_decline' || now.outcome === 'hard_decline') {
        if (lapsedUnpaid(now)) return 'expired';
        // The verdict is all the workflow records; the provider's reason goes on the attempt, for the failed
        // transaction to say why (transactions.late-declines.ts).
        await recordLateDecline(em, tx.id, { code: now.rawCode, message: now.rawMessage });
        return 'failed';
      }
      return 'unknown';
    },
  };
}
