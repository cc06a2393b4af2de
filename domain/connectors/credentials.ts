/**
 * What each provider's credentials and inbound-webhook secret look like. The connectors API validates
 * against these schemas; the adapters and the sandbox PSP authenticate with exactly these fields.
 */
import { Type, type Static, type TObject } from '@sinclair/typebox';

const secret = (pattern: string, description: string) =>
  Type.String({ pattern, minLength: 8, maxLength: 256, description });

export const PROVIDER_CREDENTIALS = {
  /** Bearer secret key (Stripe-like). Webhooks: Standard-Webhooks-style signature with a whsec_ secret. */
  provider_a: Type.Object(
    { secret_key: secret('^sk_(test|live)_[A-Za-z0-9]+$', 'sk_test_… or sk_live_…') },
    { additionalProperties: false },
  ),
  /** HTTP Basic API user plus a merchant account (Adyen-like). Webhooks: HTTP Basic with a {username,password} JSON secret. */
  provider_b: Type.Object(
    {
      username: Type.String({ minLength: 3, maxLength: 128 }),
      password: Type.String({ minLength: 8, maxLength: 256 }),
      merchant_account: Type.String({ minLength: 2, maxLength: 128 }),
    },
    { additionalProperties: false },
  ),
  /** api_key: an access token; oauth2: client credentials exchanged for tokens. Webhooks: HMAC-SHA256 hex. */
  provider_c: Type.Union([
    Type.Object({ access_token: secret('^APP_USR-[A-Za-z0-9-]+$', 'APP_USR-…') }, { additionalProperties: false }),
    Type.Object(
      {
        client_id: Type.String({ minLength: 4, maxLength: 128 }),
        client_secret: Type.String({ minLength: 8, maxLength: 256 }),
      },
      { additionalProperties: false },
    ),
  ]),
  /** API login id + transaction key (Authorize.net-like). Webhooks: HMAC-SHA512 hex with a signature key. */
  provider_d: Type.Object(
    {
      api_login_id: Type.String({ minLength: 4, maxLength: 64 }),
      transaction_key: Type.String({ minLength: 8, maxLength: 64 }),
    },
    { additionalProperties: false },
  ),
  /** OAuth only (inactive in the catalog). */
  provider_e: Type.Object(
    { client_id: Type.String({ minLength: 4 }), client_secret: Type.String({ minLength: 8 }) },
    { additionalProperties: false },
  ),
  /** Secret key + processing channel (Checkout.com-like). Webhooks: HMAC-SHA256 hex in Cko-Signature. */
  checkout: Type.Object(
    {
      secret_key: secret('^sk_(sbox_)?[A-Za-z0-9-]+$', 'sk_sbox_… or sk_…'),
      processing_channel_id: Type.String({ pattern: '^pc_[A-Za-z0-9]+$' }),
    },
    { additionalProperties: false },
  ),
} satisfies Record<string, TObject | ReturnType<typeof Type.Union>>;

export type ProviderSlug = keyof typeof PROVIDER_CREDENTIALS;
export type ProviderACredentials = Static<typeof PROVIDER_CREDENTIALS.provider_a>;
export type ProviderBCredentials = Static<typeof PROVIDER_CREDENTIALS.provider_b>;
export type ProviderCCredentials = Static<typeof PROVIDER_CREDENTIALS.provider_c>;
export type ProviderDCredentials = Static<typeof PROVIDER_CREDENTIALS.provider_d>;
export type CheckoutCredentials = Static<typeof PROVIDER_CREDENTIALS.checkout>;

/** Inbound-webhook secret format per provider (null = the provider signs nothing we verify). */
export const WEBHOOK_SECRET_FORMATS: Record<ProviderSlug, string> = {
  provider_a: 'whsec_ followed by base64 (Standard Webhooks)',
  provider_b: 'a JSON object serialized as a string: {"username": "...", "password": "..."} (HTTP Basic)',
  provider_c: 'at least 16 characters (HMAC-SHA256 key)',
  provider_d: 'a 128-character hex signature key (HMAC-SHA512)',
  provider_e: 'at least 16 characters',
  checkout: 'at least 16 characters (HMAC-SHA256 key)',
};
