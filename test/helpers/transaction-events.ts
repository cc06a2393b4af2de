/** The event types recorded for a transaction, read from the outbox (tests that check what a move emitted). */
import { rows } from './db';

const eventsOf = async (merchantId: string, txId: string): Promise<string[]> =>
  (
    await rows(`select type from events where merchant_id = ? and data->>'id' = ? order by seq`, [merchantId, txId])
  ).map((e) => e.type);

/** The transaction's event types once `type` is among them (or as they stand after ~15 s). */
export async function waitForEvent(merchantId: string, txId: string, type: string): Promise<string[]> {
  for (let i = 0; i < 75; i += 1) {
    const types = await eventsOf(merchantId, txId);
    if (types.includes(type)) return types;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return eventsOf(merchantId, txId);
}
