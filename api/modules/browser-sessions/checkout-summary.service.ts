/**
 * What the hosted checkout shows for each line: the product and offer names, the price, and what is due today
 * versus later. "Due today" comes from the same pure first-charge rules the charge path and the billing engine
 * use (workflows/lib/pricing.ts), so the page never promises a different amount than the one charged.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { OfferSchema, ProductSchema, type CheckoutItem } from '../../../db/entities';
import { firstCycleCharge, nextBillingDate, type FirstCycleKind } from '../../../workflows/lib/pricing';

const DAY_MS = 86_400_000;

export interface SummaryLine {
  itemId: string;
  offerId: string;
  productName: string;
  offerName: string;
  quantity: number;
  currency: string;
  unitAmount: number;
  dueToday: number;
  firstCharge: FirstCycleKind;
  trialDays: number;
  installments: number;
  recurring: { amount: number; billingCycle: string; customBillingDays: number | null; firstBillingAt: string } | null;
}

export interface CheckoutSummary {
  currency: string;
  dueToday: number;
  lines: SummaryLine[];
}

export async function checkoutSummary(
  em: EntityManager,
  items: CheckoutItem[],
  fallbackCurrency: string | null,
  now: Date,
): Promise<CheckoutSummary> {
  const offers = items.length ? await em.find(OfferSchema, { id: { $in: items.map((i) => i.offerId) } }) : [];
  const products = offers.length ? await em.find(ProductSchema, { id: { $in: offers.map((o) => o.productId) } }) : [];
  const lines = items.map((item): SummaryLine => {
    const offer = offers.find((o) => o.id === item.offerId)!;
    const product = products.find((p) => p.id === offer.productId)!;
    const first = firstCycleCharge({
      freeTrial: offer.freeTrial,
      trialDays: offer.trialDays,
      setupCharge: offer.setupCharge,
      amount: item.amount,
      firstChargeAmount: item.firstChargeAmount,
    });
    const recurs = offer.billingCycle !== 'none';
    // A trial bills first when it ends; otherwise one cycle after the start (here: now, when paid now).
    const firstBillingAt = !recurs
      ? null
      : first.trialDays > 0
        ? new Date(now.getTime() + first.trialDays * DAY_MS)
        : nextBillingDate(now, offer.billingCycle, offer.customBillingDays, 0);
    return {
      itemId: item.id,
      offerId: offer.id,
      productName: product.name,
      offerName: offer.name,
      quantity: item.quantity,
      currency: item.currency,
      unitAmount: item.amount,
      dueToday: first.chargeNow * item.quantity,
      firstCharge: first.kind,
      trialDays: first.trialDays,
      installments: item.installments,
      recurring: firstBillingAt
        ? {
            amount: first.recurringAmount * item.quantity,
            billingCycle: offer.billingCycle,
            customBillingDays: offer.customBillingDays,
            firstBillingAt: firstBillingAt.toISOString(),
          }
        : null,
    };
  });
  return {
    currency: items[0]?.currency ?? fallbackCurrency ?? '',
    dueToday: lines.reduce((sum, line) => sum + line.dueToday, 0),
    lines,
  };
}
