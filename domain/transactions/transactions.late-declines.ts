/**
 * A pending payment (pix, boleto, a card held for review) that the provider declines later says why, as every
 * failed transaction does. The two paths that learn the verdict — the settlement workflow's read
 * of the payment (activities/transactions/settlement.ts) and the provider's payment.failed webhook
 * (domain/provider-webhooks/provider-webhooks.effects.ts) — keep the provider's own decline code and message on
 * the attempt that went pending, before the verdict reaches the settlement workflow; failureReasonOf
 * (transactions.transitions.ts) then writes them on the failed transaction, its transaction.failed event included.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { recordLateDecline as recordOnAttempt } from '../../db/repositories/transaction-attempts.repository';
import type { InboundWebhook } from '../connectors/connector';
import { scrubProviderText } from '../connectors/registry';

/** The provider's reason, as an adapter maps a decline (rawCode / rawMessage). */
export interface ProviderDecline {
  code: string | null;
  message: string | null;
}

/**
 * A provider code is a short token (`do_not_honor`, `cc_rejected_other_reason`, `20005`, `CVC Declined`): anything
 * else is not kept. At most 8 digits, so no card number (12+) or CPF/CNPJ (11/14) can pass as a code, however
 * punctuated — the code is shown as failure_code, unscrubbed.
 */
const CODE_SHAPE = /^[A-Za-z0-9][A-Za-z0-9 _.:-]{0,63}$/;
const MAX_CODE_DIGITS = 8;

/** The code when it is a safe provider token, else null. */
export function safeProviderCode(code: string | null | undefined): string | null {
  const trimmed = code?.trim() ?? '';
  if (!CODE_SHAPE.test(trimmed)) return null;
  return (trimmed.match(/\d/g)?.length ?? 0) > MAX_CODE_DIGITS ? null : trimmed;
}

/** The message scrubbed (card and document numbers, security codes) and bounded as every provider text. */
export function safeProviderMessage(message: string | null | undefined): string | null {
  const trimmed = message?.trim() ?? '';
  return trimmed === '' ? null : scrubProviderText(trimmed);
}

/**
 * Keeps the provider's reason for declining the payment the transaction's last attempt left pending; nothing when
 * the provider said nothing usable (the transaction then fails with the generic payment_failed).
 */
export async function recordLateDecline(
  em: EntityManager,
  transactionId: string,
  decline: ProviderDecline | null | undefined,
): Promise<void> {
  const code = safeProviderCode(decline?.code);
  const message = safeProviderMessage(decline?.message);
  if (code === null && message === null) return;
  await recordOnAttempt(em, transactionId, { code, message });
}

/** A payment.failed webhook's reason (the parser's `decline`), recorded before the verdict is signalled. */
export async function recordWebhookDecline(
  em: EntityManager,
  transactionId: string,
  event: InboundWebhook,
): Promise<void> {
  if (event.type !== 'payment.failed') return;
  await recordLateDecline(em, transactionId, event.decline);
}
