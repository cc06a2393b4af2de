/**
 * What the browser may offer, derived from the merchant's active connectors: payment methods, the card brands
 * (each connector's config.card_brands, or its provider's default brands when it sets none) and installments.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { MerchantConnectorSchema, PaymentProviderSchema } from '../../../db/entities';
import { CARD_BRANDS } from '../tokens/card.rules';

/** Installment plans offered for credit cards when any active connector supports them (decision: 1–12). */
export const CREDIT_CARD_INSTALLMENTS = { min: 1, max: 12 } as const;

export interface PaymentSettings {
  cards: boolean;
  pix: boolean;
  boleto: boolean;
  wallet: boolean;
  /** In CARD_BRANDS order. */
  cardBrands: string[];
  installmentsSupported: boolean;
  installmentOptions: Record<
    'credit_card' | 'debit_card' | 'pix' | 'boleto' | 'wallet',
    { min: number; max: number } | null
  >;
}

export async function paymentSettings(em: EntityManager, merchantId: string): Promise<PaymentSettings> {
  const connectors = await em.find(MerchantConnectorSchema, { merchantId, isActive: true });
  const slugs = [...new Set(connectors.map((connector) => connector.providerSlug))];
  const providers =
    slugs.length > 0 ? await em.find(PaymentProviderSchema, { slug: { $in: slugs }, isActive: true }) : [];
  const bySlug = new Map(providers.map((provider) => [provider.slug, provider]));

  const methods = new Set<string>();
  const brands = new Set<string>();
  let installments = false;
  for (const connector of connectors) {
    const provider = bySlug.get(connector.providerSlug);
    if (!provider) continue;
    for (const method of provider.supportedPaymentMethods) methods.add(method);
    if (provider.supportedPaymentMethods.includes('card')) {
      const override = connector.config?.card_brands;
      // The override narrows: a brand the provider cannot process is never surfaced.
      const connectorBrands =
        override && override.length > 0
          ? override.filter((brand) => provider.supportedCardBrands.includes(brand))
          : provider.supportedCardBrands;
      for (const brand of connectorBrands) brands.add(brand);
      if (provider.supportsInstallments && connector.config?.installments_enabled !== false) installments = true;
    }
  }
  const cards = methods.has('card') && brands.size > 0;
  const installmentsSupported = cards && installments;
  return {
    cards,
    pix: methods.has('pix'),
    boleto: methods.has('boleto'),
    wallet: methods.has('wallet'),
    cardBrands: (CARD_BRANDS as readonly string[]).filter((brand) => brands.has(brand)),
    installmentsSupported,
    installmentOptions: {
      credit_card: installmentsSupported ? { ...CREDIT_CARD_INSTALLMENTS } : null,
      debit_card: null,
      pix: null,
      boleto: null,
      wallet: null,
    },
  };
}
