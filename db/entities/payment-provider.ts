import { EntitySchema } from '@mikro-orm/core';
import { createdAt } from './timestamps';

export const PROVIDER_PAYMENT_METHODS = ['card', 'pix', 'boleto', 'wallet'] as const;
export type ProviderPaymentMethod = (typeof PROVIDER_PAYMENT_METHODS)[number];

/** A catalog entry, seeded by migration 20261121020000. */
export interface PaymentProvider {
  id: string;
  slug: string;
  displayName: string;
  logo: string | null;
  isActive: boolean;
  supportedAuthMethods: string[] | null;
  oauthAuthorizationUrl: string | null;
  oauthTokenUrl: string | null;
  oauthScopes: string | null;
  oauthPkceRequired: boolean;
  supportedCardBrands: string[];
  supportedPaymentMethods: ProviderPaymentMethod[];
  supportedCurrencies: string[];
  supportedCountries: string[];
  supportsInstallments: boolean;
  createdAt: Date;
}

const textArray = { type: 'string[]', columnType: 'text[]' } as const;

export const PaymentProviderSchema = new EntitySchema<PaymentProvider>({
  name: 'PaymentProvider',
  tableName: 'payment_providers',
  properties: {
    id: { type: 'string', primary: true },
    slug: { type: 'string' },
    displayName: { type: 'string' },
    logo: { type: 'string', nullable: true },
    isActive: { type: 'boolean' },
    supportedAuthMethods: { ...textArray, nullable: true },
    oauthAuthorizationUrl: { type: 'string', nullable: true },
    oauthTokenUrl: { type: 'string', nullable: true },
    oauthScopes: { type: 'string', nullable: true },
    oauthPkceRequired: { type: 'boolean' },
    supportedCardBrands: textArray,
    supportedPaymentMethods: textArray,
    supportedCurrencies: textArray,
    supportedCountries: textArray,
    supportsInstallments: { type: 'boolean' },
    createdAt,
  },
});
