/** Typed keys of the search attributes webhook workflows set (defined once in definitions.ts). */
import { SEARCH_ATTRIBUTE_KEYS } from './definitions';

export const MERCHANT_ID = SEARCH_ATTRIBUTE_KEYS.MerchantId;
export const EVENT_TYPE = SEARCH_ATTRIBUTE_KEYS.EventType;
export const DELIVERY_STATUS = SEARCH_ATTRIBUTE_KEYS.DeliveryStatus;
