import { EntitySchema } from '@mikro-orm/core';
import { createdAt } from './timestamps';
import type { ActorSnapshot } from './subscription';

/**
 * Who asked for a capture, void or refund: an API key or a Dashboard user, as they were then. The operation's
 * order history entries carry its id as the prefix of their transition key (`<operation id>:begin`, `:finish`,
 * `:settled`), so the order's history names the person behind each move, not just "by api".
 */
export interface PaymentOperationActor {
  /** The operation's id: the capture or void operation id, or the refund id. */
  operationId: string;
  merchantId: string;
  transactionId: string;
  kind: 'capture' | 'void' | 'refund';
  actor: ActorSnapshot;
  createdAt: Date;
}

export const PaymentOperationActorSchema = new EntitySchema<PaymentOperationActor>({
  name: 'PaymentOperationActor',
  tableName: 'payment_operation_actors',
  properties: {
    operationId: { type: 'string', primary: true },
    merchantId: { type: 'string' },
    transactionId: { type: 'string' },
    kind: { type: 'string' },
    actor: { type: 'json' },
    createdAt,
  },
});
