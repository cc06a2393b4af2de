/** Typed keys of the search attributes webhook workflows set (registered on every namespace: definitions.ts). */
import type { SearchAttributeName } from './definitions';

const keyword = <N extends SearchAttributeName>(name: N) => ({ name, type: 'KEYWORD' }) as const;

export const MERCHANT_ID = keyword('MerchantId');
export const EVENT_TYPE = keyword('EventType');
export const DELIVERY_STATUS = keyword('DeliveryStatus');
