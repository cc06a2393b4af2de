import { Type } from '@sinclair/typebox';
import {
  DateRangeQuery,
  Id,
  Livemode,
  LivemodeQuery,
  MerchantIdField,
  MultiEnum,
  PaginationQuery,
  StrictObject,
  StringEnum,
  Timestamp,
} from '../../http/schema';
import { EVENT_TYPES } from '../../../domain/events/events.outbox';

export const EventTypeSchema = StringEnum(EVENT_TYPES, {
  description: 'An event name of the catalog (docs/events.md)',
});

export const ListEventsQuery = StrictObject({
  ...PaginationQuery,
  ...DateRangeQuery,
  merchant_id: MerchantIdField,
  type: Type.Optional(MultiEnum(EVENT_TYPES)),
  ...LivemodeQuery,
});

export const GetEventQuery = StrictObject({ merchant_id: MerchantIdField });
export const EventParams = StrictObject({ id: Id('evt') });

export const EventObject = StrictObject({
  id: Type.String(),
  type: EventTypeSchema,
  livemode: Livemode,
  created_at: Timestamp,
  data: StrictObject({ object: Type.Record(Type.String(), Type.Unknown()) }),
  merchant_id: Type.String(),
});
