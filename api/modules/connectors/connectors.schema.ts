import { Type } from '@sinclair/typebox';
import { PROVIDER_CREDENTIALS } from '../../../domain/connectors/credentials';
import {
  Country,
  Id,
  MAX_SERIALIZED_BYTES,
  Nullable,
  PaginationQuery,
  StrictObject,
  StringEnum,
  Timestamp,
} from '../../http/schema';

export const AUTH_METHODS = ['api_key', 'oauth2'] as const;
export type AuthMethod = (typeof AUTH_METHODS)[number];

/** Every catalog slug passes the schema; whether the provider is active is checked against the catalog. */
const ProviderSlug = StringEnum(Object.keys(PROVIDER_CREDENTIALS) as (keyof typeof PROVIDER_CREDENTIALS)[]);
const Name = Type.String({
  minLength: 1,
  maxLength: 100,
  pattern: '\\S',
  description: 'Label, at most 100 characters',
});
/** Shape checked per provider and auth method by the service (connector-rules.ts); never echoed back. */
const Credentials = Type.Unsafe<Record<string, unknown>>({
  type: 'object',
  [MAX_SERIALIZED_BYTES]: 4096,
  description:
    'Write-only, at most 4096 bytes serialized; fields depend on provider_slug and auth_method (see GET /payment-providers/:provider_id)',
});
const WebhookSecret = Type.String({
  minLength: 1,
  maxLength: 1024,
  description: 'Write-only; format depends on the provider',
});
const CardBrand = Type.String({ minLength: 1, maxLength: 32 });

/** config.circuit_breaker: absent fields take the defaults (5 failures, 60 s). */
const CircuitBreakerConfig = StrictObject(
  {
    failure_threshold: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 1000,
        description:
          'Consecutive infrastructure failures (unknown outcome, 5xx, timeout, refused) that open the circuit; default 5',
      }),
    ),
    cooldown_seconds: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 86400,
        description: 'Seconds an open circuit waits before one charge probes it (half-open); default 60',
      }),
    ),
  },
  { description: "The connector's circuit breaker; declines never count" },
);

export const ConfigInput = StrictObject({
  card_brands: Type.Optional(
    Type.Array(CardBrand, {
      maxItems: 20,
      uniqueItems: true,
      description: "Subset of the provider's brands; empty or absent = the provider's defaults",
    }),
  ),
  installments_enabled: Type.Optional(Type.Boolean()),
  circuit_breaker: Type.Optional(CircuitBreakerConfig),
});

export const CreateConnectorBody = StrictObject({
  provider_slug: ProviderSlug,
  name: Name,
  is_test_mode: Type.Boolean(),
  credentials: Credentials,
  auth_method: StringEnum(AUTH_METHODS),
  country_code: Type.Optional(Nullable(Country)),
  is_active: Type.Optional(Type.Boolean({ default: true })),
  webhook_secret: Type.Optional(Nullable(WebhookSecret)),
  config: Type.Optional(Nullable(ConfigInput)),
});

export const UpdateConnectorBody = StrictObject({
  name: Type.Optional(Name),
  is_active: Type.Optional(Type.Boolean()),
  credentials: Type.Optional(Credentials),
  webhook_secret: Type.Optional(Nullable(WebhookSecret)),
  config: Type.Optional(Nullable(ConfigInput)),
});

export const MerchantParams = StrictObject({ merchant_id: Id('mrc') });
export const ConnectorParams = StrictObject({ merchant_id: Id('mrc'), connector_id: Id('conn') });
export const DashboardConnectorParams = StrictObject({ connector_id: Id('conn') });

export const CircuitBody = StrictObject({
  state: StringEnum(['open', 'closed'] as const, {
    description: 'open: routing skips the connector for a cool-down, then probes it; closed: routing uses it again',
  }),
});

/** The connector's health: its circuit breaker and the sliding window of its recent attempts. */
export const HealthObject = StrictObject({
  state: StringEnum(['closed', 'open', 'half_open'] as const),
  consecutive_failures: Type.Integer({ minimum: 0 }),
  opened_at: Nullable(Timestamp),
  next_probe_at: Nullable(Timestamp),
  last_failure_at: Nullable(Timestamp),
  last_failure_code: Nullable(Type.String()),
  window: StrictObject({
    attempts: Type.Integer({ minimum: 0 }),
    approved: Type.Integer({ minimum: 0 }),
    declined: Type.Integer({ minimum: 0 }),
    errors: Type.Integer({ minimum: 0 }),
    approval_rate: Nullable(Type.Number({ minimum: 0, maximum: 1 })),
    since: Timestamp,
  }),
});
export const ListConnectorsQuery = StrictObject({ ...PaginationQuery });

export const ConnectorObject = StrictObject({
  id: Type.String(),
  merchant_id: Type.String(),
  provider_slug: Type.String(),
  name: Type.String(),
  country_code: Nullable(Type.String()),
  auth_method: StringEnum(AUTH_METHODS),
  is_test_mode: Type.Boolean(),
  is_active: Type.Boolean(),
  created_at: Timestamp,
  updated_at: Timestamp,
  webhook_url: Nullable(Type.String({ description: "Carries the connector's secret token: treat it as a secret" })),
  has_webhook_secret: Type.Boolean(),
  config: Nullable(
    StrictObject({
      card_brands: Type.Optional(Type.Array(Type.String())),
      installments_enabled: Type.Optional(Type.Boolean()),
      circuit_breaker: Type.Optional(
        StrictObject({
          failure_threshold: Type.Optional(Type.Integer()),
          cooldown_seconds: Type.Optional(Type.Integer()),
        }),
      ),
    }),
  ),
  health: HealthObject,
});
