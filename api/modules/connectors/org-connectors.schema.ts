/** The organization Dashboard's connector endpoints: the merchant-level shapes, plus how a merchant is named. */
import { Type } from '@sinclair/typebox';
import { Id, MultiEnum, Nullable, PaginationQuery, StrictObject, StringEnum, Timestamp } from '../../http/schema';
import { CreateConnectorBody } from './connectors.schema';

const MerchantId = Id('mrc');

export const OrgConnectorParams = StrictObject({ connector_id: Id('conn') });

export const CreateOrgConnectorBody = StrictObject({
  merchant_id: { ...MerchantId, description: "The organization's merchant the connector is created for" },
  ...CreateConnectorBody.properties,
});

export const ListOrgConnectorsQuery = StrictObject({
  ...PaginationQuery,
  merchant_id: Type.Optional({
    ...MerchantId,
    description: "Only this merchant's connectors (default: all of the organization's)",
  }),
});

export const CredentialCheckObject = StrictObject({
  ok: Type.Boolean({ description: 'Whether the provider accepted the stored credentials' }),
  provider_message: Type.String({ description: 'A fixed-text verdict; never quotes a credential' }),
  checked_at: Timestamp,
});

const ReceivedFrom = Type.Optional(
  Type.String({ format: 'date-time', description: 'received_at at or after (ISO 8601)' }),
);
const ReceivedTo = Type.Optional(
  Type.String({ format: 'date-time', description: 'received_at at or before (ISO 8601)' }),
);
export const INBOUND_STATUSES = ['processed', 'duplicate', 'ignored', 'failed'] as const;

export const ListInboundWebhooksQuery = StrictObject({
  ...PaginationQuery,
  status: Type.Optional(MultiEnum(INBOUND_STATUSES)),
  from: ReceivedFrom,
  to: ReceivedTo,
});
export const ListInvalidWebhooksQuery = StrictObject({ ...PaginationQuery, from: ReceivedFrom, to: ReceivedTo });

/** An authentic provider webhook and what became of it (metadata only: never its body, headers or the secret). */
export const InboundWebhookObject = StrictObject({
  id: Type.String(),
  status: StringEnum(INBOUND_STATUSES, {
    description:
      'processed: applied (or named nothing of ours); duplicate: the provider event was already received; ignored: an event type we do not act on, or not applied (reason AMOUNT_MISMATCH); failed: processing failed, the provider will retry',
  }),
  event_type: Nullable(
    Type.String({ description: "Our event type (payment.succeeded…) or the provider's own when ignored" }),
  ),
  provider_event_id: Nullable(Type.String()),
  provider_reference: Nullable(Type.String({ description: "The provider's payment or refund reference" })),
  reason: Nullable(Type.String({ description: 'Why it was ignored or failed (a code)' })),
  received_at: Timestamp,
});

/** A refused delivery that named this connector: why it was refused. */
export const InvalidWebhookObject = StrictObject({
  id: Type.String(),
  reason: StringEnum(['bad_signature', 'malformed_body', 'unknown_connector', 'connector_inactive'] as const, {
    description:
      'bad_signature: signature or authentication failed; malformed_body: not a parseable event; unknown_connector: the webhook token does not match; connector_inactive: the connector is inactive',
  }),
  detail: Nullable(Type.String({ description: 'A fixed explanation; never the body or a secret' })),
  received_at: Timestamp,
});
