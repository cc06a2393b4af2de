/**
 * The reconciler's give-back of a charge the provider made while its transaction answered `failed`: a refund (the
 * charge was captured) or a void (an authorization, a pending pix/boleto), followed to the provider's final word
 * across reconciler runs. Each give-back is sent under its own provider key; its answer is kept on the attempt
 * (transaction_attempts.give_back_*):
 * - approved: given back, the attempt is settled;
 * - pending, or no definitive answer: asked about again on the next run — by the provider's webhook meanwhile, or
 *   by a lookup under its key; a lookup that finds nothing under the key sends it again under that same key (the
 *   provider replays or processes it once);
 * - refused (answered so, found so, or notified so — a refund can fail even after it succeeded): the customer is
 *   still charged, so a new give-back is sent under the next key, up to MAX_GIVE_BACKS; after that the attempt
 *   stays unresolved with its refused give-back, for an operator.
 */
import type { ConnectorAdapter, Outcome, ProviderCall, ProviderResult } from '../../domain/connectors/connector';
import type { GiveBackStatus } from '../../db/repositories/transaction-attempts.repository';

/** Give-backs sent (each refused by the provider) before the attempt is left to an operator. */
export const MAX_GIVE_BACKS = 3;

export interface GiveBackInput {
  adapter: ConnectorAdapter;
  /** The charge attempt's call (its idempotency key is the attempt's own). */
  call: ProviderCall;
  transactionId: string;
  /** The charge as found: its provider reference, and whether it was captured (refund) or not (void). */
  providerReference: string;
  refund: boolean;
  amount: number;
  currency: string;
  /** Where the latest give-back stands: how many were sent, and its status (none sent yet: 0, null). */
  tries: number;
  status: GiveBackStatus | null;
}

/** What this run did: the give-back's standing now, with the try it belongs to and its provider reference. */
export interface GiveBackStep {
  tries: number;
  status: GiveBackStatus;
  reference: string | null;
  /** Whether the standing changed (something to record). */
  changed: boolean;
}

/** Give-back number `n`'s provider key and our reference: the first keeps the reconciler's original ones. */
const keyOf = (base: string, n: number) => (n === 1 ? `${base}:reverse` : `${base}:reverse:${n}`);
const referenceOf = (transactionId: string, n: number) => (n === 1 ? transactionId : `${transactionId}-${n}`);

const DECLINES = new Set<Outcome>(['soft_decline', 'hard_decline']);
const statusOf = (outcome: Outcome): GiveBackStatus =>
  outcome === 'approved' ? 'succeeded' : DECLINES.has(outcome) ? 'failed' : 'pending';

export async function followGiveBack(input: GiveBackInput): Promise<GiveBackStep> {
  const unchanged = { tries: input.tries, status: input.status!, reference: null, changed: false };
  if (input.status === 'succeeded') return unchanged;
  let status: GiveBackStatus | null = input.status;
  if (status === 'pending') {
    const looked = await input.adapter.lookup(callFor(input, input.tries), {
      operation: input.refund ? 'refund' : 'void',
      providerReference: input.providerReference,
      reference: referenceOf(input.transactionId, input.tries),
    });
    if (looked.status === 'unknown') return unchanged;
    // Nothing under its key: sent again under that same key below. Refused: the next one is sent below.
    if (looked.status === 'found') status = statusOf(looked.result.outcome);
    if (status === 'pending' && looked.status === 'found') return unchanged;
    if (status === 'succeeded') return { ...unchanged, status, changed: true };
  }
  if (status === 'failed' && input.tries >= MAX_GIVE_BACKS)
    return { ...unchanged, status, changed: input.status !== 'failed' };
  const tries = status === 'pending' ? input.tries : input.tries + 1;
  const answer = await send(input, tries);
  return { tries, status: statusOf(answer.outcome), reference: answer.providerReference, changed: true };
}

function callFor(input: GiveBackInput, n: number): ProviderCall {
  return { ...input.call, idempotencyKey: keyOf(input.call.idempotencyKey, n) };
}

function send(input: GiveBackInput, n: number): Promise<ProviderResult> {
  const call = callFor(input, n);
  if (!input.refund) return input.adapter.void(call, { providerReference: input.providerReference });
  return input.adapter.refund(call, {
    providerReference: input.providerReference,
    // A number, as in the charge itself (the provider's JSON takes no string amount).
    amount: input.amount,
    currency: input.currency,
    reference: referenceOf(input.transactionId, n),
  });
}
