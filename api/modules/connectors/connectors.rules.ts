/**
 * What a connector may store, per provider: credential shape (domain/connectors/credentials.ts, compiled
 * once), inbound-webhook secret format, and config overrides against the provider's catalog entry.
 * Every message names the field and the expected format, never the submitted value: these are secrets.
 */
import type { TSchema } from '@sinclair/typebox';
import type { ValidateFunction } from 'ajv';
import {
  PROVIDER_CREDENTIALS,
  WEBHOOK_SECRET_FORMATS,
  type ProviderSlug,
} from '../../../domain/connectors/credentials';
import type { ConnectorConfig, PaymentProvider } from '../../../db/entities';
import type { FieldErrors } from '../../../domain/platform/errors';
import { bodyAjv, toFieldErrors } from '../../http/schema';
import { AUTH_METHODS, type AuthMethod } from './connectors.schema';

/**
 * A provider with one credential shape per auth method declares a union in AUTH_METHODS order (provider_c:
 * access token for api_key, client id/secret for oauth2); the auth method picks the branch, so a shape that
 * belongs to the other method is refused instead of silently accepted.
 */
export function credentialSchema(slug: ProviderSlug, method: AuthMethod): TSchema {
  const schema: TSchema = PROVIDER_CREDENTIALS[slug];
  const branches = (schema as { anyOf?: TSchema[] }).anyOf;
  return branches ? branches[AUTH_METHODS.indexOf(method)] : schema;
}

const CREDENTIAL_VALIDATORS = new Map<string, ValidateFunction>(
  (Object.keys(PROVIDER_CREDENTIALS) as ProviderSlug[]).flatMap((slug) =>
    AUTH_METHODS.map((method): [string, ValidateFunction] => [
      `${slug}:${method}`,
      bodyAjv.compile(credentialSchema(slug, method)),
    ]),
  ),
);

export const isProviderSlug = (slug: string): slug is ProviderSlug => Object.hasOwn(PROVIDER_CREDENTIALS, slug);

/** Field errors under `credentials.<field>` (ajv messages name patterns and lengths, never the data). */
export function credentialErrors(slug: string, method: AuthMethod, credentials: Record<string, unknown>): FieldErrors {
  const validate = isProviderSlug(slug) ? CREDENTIAL_VALIDATORS.get(`${slug}:${method}`) : undefined;
  if (!validate) return { credentials: [`no credential schema for ${slug}`] };
  if (validate(credentials)) return {};
  const details: FieldErrors = {};
  for (const [field, messages] of Object.entries(toFieldErrors(validate.errors, 'credentials'))) {
    details[field === 'credentials' ? field : `credentials.${field}`] = messages;
  }
  return details;
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Standard Webhooks: whsec_ + base64 of a key of at least 24 bytes. */
function providerASecret(value: string): boolean {
  if (!value.startsWith('whsec_')) return false;
  const encoded = value.slice('whsec_'.length);
  return encoded.length > 0 && BASE64.test(encoded) && Buffer.from(encoded, 'base64').length >= 24;
}

/**
 * HTTP Basic {username, password}, plus an optional hex `hmac_key` that also checks the per-item HMAC the
 * provider signs notifications with. JSON.parse errors quote the input, so they are dropped.
 */
function providerBSecret(value: string): boolean {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return false;
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return false;
  const fields = parsed as Record<string, unknown>;
  const text = (field: unknown) => typeof field === 'string' && field.length > 0 && field.length <= 256;
  const known = Object.keys(fields).every((key) => ['username', 'password', 'hmac_key'].includes(key));
  const hmacKey =
    fields.hmac_key === undefined ||
    (typeof fields.hmac_key === 'string' && /^([0-9A-Fa-f]{2}){16,64}$/.test(fields.hmac_key));
  return known && text(fields.username) && text(fields.password) && hmacKey;
}

const atLeast16 = (value: string) => value.length >= 16;

const WEBHOOK_SECRET_RULES: Record<ProviderSlug, (value: string) => boolean> = {
  provider_a: providerASecret,
  provider_b: providerBSecret,
  provider_c: atLeast16,
  provider_d: (value) => /^[0-9A-Fa-f]{128}$/.test(value),
  provider_e: atLeast16,
  checkout: atLeast16,
};

export function webhookSecretErrors(slug: string, secret: string): FieldErrors {
  if (!isProviderSlug(slug)) return { webhook_secret: [`no webhook secret format for ${slug}`] };
  return WEBHOOK_SECRET_RULES[slug](secret) ? {} : { webhook_secret: [`must be ${WEBHOOK_SECRET_FORMATS[slug]}`] };
}

export interface ConfigInput {
  card_brands?: string[];
  installments_enabled?: boolean;
  circuit_breaker?: { failure_threshold?: number; cooldown_seconds?: number };
}

/** card_brands may only narrow the provider's brands; installments only where the provider offers them. */
export function configErrors(provider: PaymentProvider, config: ConfigInput | null): FieldErrors {
  const details: FieldErrors = {};
  const unsupported = (config?.card_brands ?? []).filter((brand) => !provider.supportedCardBrands.includes(brand));
  if (unsupported.length > 0) {
    details['config.card_brands'] = [
      `${unsupported.join(', ')} not supported by ${provider.slug} (supported: ${provider.supportedCardBrands.join(', ')})`,
    ];
  }
  if (config?.installments_enabled && !provider.supportsInstallments) {
    details['config.installments_enabled'] = [`${provider.slug} does not support installments`];
  }
  return details;
}

/**
 * The stored form: an empty or absent card_brands means "no override" (the provider's defaults), and a
 * config with nothing left in it is null.
 */
export function normalizeConfig(config: ConfigInput | null | undefined): ConnectorConfig | null {
  if (!config) return null;
  const normalized: ConnectorConfig = {};
  if (config.card_brands && config.card_brands.length > 0) normalized.card_brands = [...config.card_brands];
  if (config.installments_enabled !== undefined) normalized.installments_enabled = config.installments_enabled;
  // Only the settings sent are kept (the others stay at their defaults); an empty object is no setting.
  const breaker = config.circuit_breaker;
  if (breaker && (breaker.failure_threshold !== undefined || breaker.cooldown_seconds !== undefined))
    normalized.circuit_breaker = { ...breaker };
  return Object.keys(normalized).length > 0 ? normalized : null;
}

export function countryErrors(provider: PaymentProvider, countryCode: string | null | undefined): FieldErrors {
  if (!countryCode || provider.supportedCountries.includes(countryCode)) return {};
  return {
    country_code: [
      `${provider.slug} does not operate in ${countryCode} (supported: ${provider.supportedCountries.join(', ')})`,
    ],
  };
}

export function authMethodErrors(provider: PaymentProvider, method: AuthMethod): FieldErrors {
  const supported = provider.supportedAuthMethods ?? [];
  return supported.includes(method)
    ? {}
    : { auth_method: [`${provider.slug} supports: ${supported.join(', ') || 'none'}`] };
}
