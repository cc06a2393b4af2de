import { Type } from '@sinclair/typebox';
import {
  Id,
  Livemode,
  LivemodeQuery,
  Nullable,
  PaginationQuery,
  StrictObject,
  StringEnum,
  Timestamp,
} from '../../http/schema';
import { EVENT_TYPES } from '../../../domain/events/events.outbox';
import { EventTypeSchema } from '../events/events.schema';
import { MAX_URL_LENGTH } from './webhook-url.rules';
import { API_DELIVERY_STATUSES, DELIVERY_STATUS_FILTER_VALUES } from './delivery-status.rules';

/** Checked further by the service (webhook-url.ts): scheme, host, credentials, private addresses. */
const Url = Type.String({
  minLength: 1,
  maxLength: MAX_URL_LENGTH,
  pattern: '^\\S+$',
  description: 'https URL (http to loopback only in local/test mode)',
});
const Description = Type.String({ minLength: 1, maxLength: 500 });
const EventFilter = Type.Array(EventTypeSchema, {
  minItems: 1,
  maxItems: EVENT_TYPES.length,
  uniqueItems: true,
  description:
    'Event names to deliver; null or omitted = every event. An empty list is refused (set is_active false instead).',
});

export const CreateWebhookConfigBody = StrictObject({
  url: Url,
  description: Type.Optional(Nullable(Description)),
  event_filter: Type.Optional(Nullable(EventFilter)),
});

export const UpdateWebhookConfigBody = StrictObject({
  url: Type.Optional(Url),
  description: Type.Optional(Nullable(Description)),
  event_filter: Type.Optional(Nullable(EventFilter)),
  is_active: Type.Optional(Type.Boolean()),
});

export const MerchantParams = StrictObject({ merchant_id: Id('mrc') });
export const WebhookParams = StrictObject({ merchant_id: Id('mrc'), webhook_id: Id('whc') });
export const ListWebhookConfigsQuery = StrictObject({ ...PaginationQuery });

const configFields = {
  id: Type.String(),
  merchant_id: Type.String(),
  url: Type.String(),
  description: Nullable(Type.String()),
  event_filter: Nullable(Type.Array(Type.String())),
  is_active: Type.Boolean(),
  created_at: Timestamp,
  updated_at: Timestamp,
  last_triggered_at: Nullable(Timestamp),
};

export const WebhookConfigObject = StrictObject(configFields);
export const WebhookConfigWithSecret = StrictObject({
  ...configFields,
  secret: Type.String({ pattern: '^whsec_', description: 'Signing secret; shown only in this response' }),
});

export const ListDeliveriesQuery = StrictObject({
  ...PaginationQuery,
  status: Type.Optional(
    Type.Array(StringEnum(DELIVERY_STATUS_FILTER_VALUES), {
      minItems: 1,
      'x-comma-separated': true,
      description: 'success, retrying or failed (comma-separated or repeated); succeeded: deprecated alias of success',
    }),
  ),
  from: Type.Optional(Type.String({ format: 'date-time', description: 'Attempts recorded at or after (inclusive)' })),
  to: Type.Optional(Type.String({ format: 'date-time', description: 'Attempts recorded at or before (inclusive)' })),
  webhook_id: Type.Optional(Id('whc')),
  event_id: Type.Optional(Id('evt')),
  ...LivemodeQuery,
});

export const DeliveryRecordObject = StrictObject({
  id: Type.String(),
  merchant_id: Type.String(),
  merchant_webhook_config_id: Type.String(),
  payment_transaction_id: Nullable(Type.String()),
  order_id: Nullable(Type.String()),
  event_type: Type.String(),
  livemode: Livemode,
  payload: Type.Record(Type.String(), Type.Unknown(), { description: 'The Event envelope sent' }),
  target_url: Type.String(),
  attempt_number: Type.Integer({ minimum: 1 }),
  http_status_code: Nullable(Type.Integer()),
  response_body: Nullable(Type.String()),
  status: StringEnum(API_DELIVERY_STATUSES),
  next_retry_at: Nullable(Timestamp),
  created_at: Timestamp,
  sent_at: Nullable(Timestamp),
  event_id: Type.String(),
  trigger: StringEnum(['automatic', 'manual'] as const),
  error: Nullable(Type.String()),
  duration_ms: Nullable(Type.Integer()),
});

export const RedeliverBody = StrictObject({ event_id: Id('evt') });

export const RedeliveryObject = StrictObject({
  merchant_webhook_config_id: Type.String(),
  event_id: Type.String(),
  status: StringEnum(['queued'] as const),
});

export const RecoverBody = StrictObject({
  since: Type.String({ format: 'date-time', description: 'Deliveries that failed at or after this time' }),
  until: Type.Optional(Type.String({ format: 'date-time', description: 'Up to this time (default: now)' })),
});

export const RecoveryObject = StrictObject({
  merchant_webhook_config_id: Type.String(),
  since: Timestamp,
  until: Timestamp,
  events_queued: Type.Integer({ minimum: 0 }),
});
