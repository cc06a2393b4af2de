/**
 * What the hosted checkout offers, read from routing: per checkout method, the connectors the
 * merchant's active routing profiles can send it to; card brands and installments from those card connectors
 * only. The checkout view (GET /sessions/checkout) and the Dashboard's "live at checkout" panel both read it here,
 * so what staff see is what buyers get.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  MerchantConnectorSchema,
  PaymentProviderSchema,
  RoutingNodeSchema,
  RoutingProfileSchema,
  type MerchantConnector,
  type PaymentProvider,
} from '../../../db/entities';
import { buildProgram, connectorState } from '../../../domain/routing/routing.program';
import type { ConnectorState } from '../../../domain/routing/routing.evaluate';
import { CARD_BRANDS } from '../tokens/card.rules';
import { CREDIT_CARD_INSTALLMENTS, type PaymentSettings } from '../browser-sessions/payment-settings.service';
import { CHECKOUT_METHODS, servingConnectorIds, type ActiveProfile, type CheckoutMethod } from './routing-reach.rules';

export interface CheckoutReach {
  currency: string | null;
  methods: Record<CheckoutMethod, MerchantConnector[]>;
  /** Brands at least one serving card connector takes, in CARD_BRANDS order. */
  cardBrands: string[];
  installmentsSupported: boolean;
}

/** Four reads whatever the merchant's size: its active profiles, their nodes, its connectors, their providers. */
export async function checkoutReach(
  em: EntityManager,
  merchantId: string,
  currency: string | null,
): Promise<CheckoutReach> {
  const profiles = await em.find(RoutingProfileSchema, { merchantId, isActive: true });
  const nodes = profiles.length
    ? await em.find(RoutingNodeSchema, { routingProfileId: { $in: profiles.map((p) => p.id) } })
    : [];
  const connectors = profiles.length ? await em.find(MerchantConnectorSchema, { merchantId }) : [];
  const slugs = [...new Set(connectors.map((c) => c.providerSlug))];
  const providers = slugs.length ? await em.find(PaymentProviderSchema, { slug: { $in: slugs }, isActive: true }) : [];
  const bySlug = new Map<string, PaymentProvider>(providers.map((p) => [p.slug, p]));
  const byId = new Map(connectors.map((c) => [c.id, c]));

  const active: ActiveProfile[] = profiles.map((profile) => ({
    paymentMethod: profile.paymentMethod,
    program: buildProgram(
      profile,
      nodes.filter((node) => node.routingProfileId === profile.id),
    ),
  }));
  // A connector whose provider left the catalog (or was switched off) takes nothing: no state, never served.
  const states = new Map<string, ConnectorState>();
  for (const connector of connectors) {
    const provider = bySlug.get(connector.providerSlug);
    if (provider) states.set(connector.id, connectorState(connector, provider));
  }
  const methods = Object.fromEntries(
    CHECKOUT_METHODS.map((method) => [
      method,
      servingConnectorIds(active, states, method, currency).map((id) => byId.get(id)!),
    ]),
  ) as Record<CheckoutMethod, MerchantConnector[]>;
  const brands = new Set(methods.credit_card.flatMap((c) => states.get(c.id)!.cardBrands));
  const installmentsSupported = methods.credit_card.some(
    (c) => bySlug.get(c.providerSlug)!.supportsInstallments && c.config?.installments_enabled !== false,
  );
  return {
    currency,
    methods,
    cardBrands: (CARD_BRANDS as readonly string[]).filter((brand) => brands.has(brand)),
    installmentsSupported: installmentsSupported && brands.size > 0,
  };
}

/** The checkout view's payment methods (the shape GET /sessions/checkout answers), from routing. */
export async function checkoutPaymentSettings(
  em: EntityManager,
  merchantId: string,
  currency: string | null,
): Promise<PaymentSettings> {
  const reach = await checkoutReach(em, merchantId, currency);
  const cards = reach.methods.credit_card.length > 0 && reach.cardBrands.length > 0;
  return {
    cards,
    pix: reach.methods.pix.length > 0,
    boleto: reach.methods.boleto.length > 0,
    wallet: reach.methods.wallet.length > 0,
    cardBrands: cards ? reach.cardBrands : [],
    installmentsSupported: cards && reach.installmentsSupported,
    installmentOptions: {
      credit_card: cards && reach.installmentsSupported ? { ...CREDIT_CARD_INSTALLMENTS } : null,
      debit_card: null,
      pix: null,
      boleto: null,
      wallet: null,
    },
  };
}
