/** The camelCase browser-session and checkout views of Document 3 (plus the additive `encryption` key). */
import type { BrowserSession, Merchant } from '../../../db/entities';
import type { VaultKeys } from '../../../domain/platform/vault-keys';
import type { PaymentSettings } from './payment-settings.service';
import type { BrowserCheckoutView } from './browser-checkout.service';

const iso = (date: Date | null) => (date ? date.toISOString() : null);

export function presentBrowserSession(
  session: BrowserSession,
  merchant: Merchant,
  settings: PaymentSettings,
  vault: VaultKeys,
  sriHash: string,
) {
  return {
    sessionId: session.id,
    expiresAt: session.expiresAt.toISOString(),
    merchant: { id: merchant.id, name: merchant.name, organizationId: merchant.organizationId },
    // Wallet flags follow the providers' `wallet` method: each supported wallet is offered where any is.
    capabilities: { cards: settings.cards, pix: settings.pix, applePay: settings.wallet, googlePay: settings.wallet },
    settings: {
      allowedCardBrands: settings.cardBrands,
      requireCvc: true,
      requireCardholderName: false,
      collectBillingAddress: false,
    },
    // The SDK file only changes with a deploy; the hash is promised for the life of this session.
    sdk: { sriHash, sriExpiresAt: session.expiresAt.toISOString() },
    installmentsSupported: settings.installmentsSupported,
    installmentOptions: settings.installmentOptions,
    encryption: { alg: 'ECDH-ES' as const, enc: 'A256GCM' as const, kid: vault.kid, jwk: { ...vault.publicJwk } },
  };
}

export function presentBrowserCheckout({
  checkout,
  status,
  items,
  settings,
  instruments,
  summary,
  payment,
}: BrowserCheckoutView) {
  return {
    checkout: {
      id: checkout.id,
      merchantId: checkout.merchantId,
      mode: checkout.mode,
      offerId: checkout.offerId,
      // A customer matched by a typed e-mail may be someone else's record: its id is not the browser's to know.
      customerId: checkout.customerBoundBy === 'id' ? checkout.customerId : null,
      customerEmail: checkout.customerEmail,
      customerName: checkout.customerName,
      selectedCurrency: checkout.selectedCurrency,
      status,
      externalSessionId: checkout.externalSessionId,
      expiresAt: iso(checkout.expiresAt),
      completedAt: iso(checkout.completedAt),
      paymentInstrumentId: checkout.paymentInstrumentId,
      // Stripe Checkout's template variable: the merchant's page learns which session sent the buyer back.
      successUrl: checkout.successUrl?.replaceAll('{CHECKOUT_SESSION_ID}', checkout.id) ?? null,
      cancelUrl: checkout.cancelUrl,
      createdAt: checkout.createdAt.toISOString(),
      updatedAt: checkout.updatedAt.toISOString(),
      items: items.map((item) => ({
        id: item.id,
        checkoutSessionId: item.checkoutSessionId,
        offerId: item.offerId,
        currency: item.currency,
        amount: item.amount,
        firstChargeAmount: item.firstChargeAmount,
        quantity: item.quantity,
        installments: item.installments,
        createdAt: item.createdAt.toISOString(),
      })),
    },
    summary,
    payment,
    paymentMethods: {
      cards: settings.cards,
      pix: settings.pix,
      boleto: settings.boleto,
      wallet: settings.wallet,
      cardBrands: settings.cardBrands,
      installmentsSupported: settings.installmentsSupported,
      installmentOptions: settings.installmentOptions,
    },
    savedInstruments: instruments.map((instrument) => ({
      id: instrument.id,
      instrumentType: instrument.instrumentType,
      brand: instrument.cardBrand,
      last4: instrument.last4,
      expMonth: instrument.expMonth,
      expYear: instrument.expYear,
    })),
  };
}
