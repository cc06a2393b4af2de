/**
 * Per-merchant caps on webhook attempts in flight in one worker process. Every merchant shares the
 * `webhooks` task queue and the direct fan-out's slots; without a cap, one merchant's flood (many events to many
 * endpoints, or endpoints that never answer) fills them and another merchant's deliveries wait behind it.
 *
 * - The delivery activity takes a merchant slot for its attempt; with none free it sends nothing and answers
 *   `deferred`, and the delivery workflow waits a few seconds and asks again (the attempt is not counted). The
 *   activity slot is given back at once, so other merchants' attempts run.
 * - The direct fan-out (direct-fan-out.ts) counts its first attempts per merchant too; past its cap the delivery
 *   starts its workflow instead, which then meets the activity cap.
 */
export const MAX_ATTEMPTS_IN_FLIGHT_PER_MERCHANT = 16;
/** Direct first attempts, in flight or waiting for their endpoint, per merchant and process. */
export const MAX_DIRECT_PER_MERCHANT = 32;
/** How long a deferred attempt waits before it asks again: 1 to 3 s, spread so deferred ones do not move in step. */
export const deferralMs = (random: () => number = Math.random) => 1000 + Math.floor(random() * 2000);

export class MerchantSlots {
  private readonly taken = new Map<string, number>();

  constructor(private readonly limit: number) {}

  /** true when the merchant had a free slot (now taken: release() it after the attempt). */
  tryTake(merchantId: string): boolean {
    const count = this.taken.get(merchantId) ?? 0;
    if (count >= this.limit) return false;
    this.taken.set(merchantId, count + 1);
    return true;
  }

  release(merchantId: string): void {
    const count = this.taken.get(merchantId) ?? 0;
    if (count <= 1) this.taken.delete(merchantId);
    else this.taken.set(merchantId, count - 1);
  }
}
