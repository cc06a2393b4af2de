/** The webhook pages' shapes from the API, and who may change endpoints. */
import type { Item } from '../../api';
import { currentSession } from '../../session';

export type WebhookConfig = Item<'getMerchantWebhookConfigs'>;

export type Delivery = Item<'getMerchantWebhookDeliveries'>;

export type EventType = Item<'getMerchantWebhookEventTypes'>;

export function canManage(): boolean {
  const session = currentSession();
  const mine = session?.memberships.find((m) => m.merchant_id === session.merchantId && m.status === 'active');
  return mine?.role === 'owner' || mine?.role === 'admin';
}
