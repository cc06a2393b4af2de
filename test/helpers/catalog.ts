/**
 * Catalog fixtures written straight to the database, for tests whose subject is something else (checkout
 * sessions, later subscriptions). Catalog endpoints themselves are tested through the API.
 */
import {
  OfferPriceSchema,
  OfferSchema,
  ProductFamilySchema,
  ProductSchema,
  type BillingCycle,
  type ChangeChargeBehavior,
  type Offer,
  type OfferPrice,
  type Product,
  type ProductFamily,
} from '../../db/entities';
import { newId } from '../../domain/platform/ids';
import { stack } from './stack';

export interface PriceFixture {
  currency: string;
  amount: number;
  firstChargeAmount?: number | null;
  isDefault?: boolean;
}

export interface OfferFixture {
  familyId?: string;
  billingCycle?: BillingCycle;
  freeTrial?: boolean;
  trialDays?: number | null;
  setupCharge?: boolean;
  isDefault?: boolean;
  prices?: PriceFixture[];
}

export async function createFamily(
  merchantId: string,
  behavior: ChangeChargeBehavior = 'next_renew',
): Promise<ProductFamily> {
  const em = stack().orm.em.fork();
  const id = newId('pfa');
  const family = em.create(ProductFamilySchema, {
    id,
    merchantId,
    name: `Family ${id.slice(-6)}`,
    slug: `family-${id.slice(-8).toLowerCase()}`,
    description: null,
    customPlanId: null,
    changeChargeBehavior: behavior,
    deletedAt: null,
  } as ProductFamily);
  await em.flush();
  return family;
}

/** A family product (tier = number of products already in it) with one offer and its prices. */
export async function createOffer(
  merchantId: string,
  fixture: OfferFixture = {},
): Promise<{ offer: Offer; prices: OfferPrice[]; product: Product }> {
  const em = stack().orm.em.fork();
  const familyId = fixture.familyId ?? (await createFamily(merchantId)).id;
  const tier = await em.count(ProductSchema, { productFamilyId: familyId });
  const product = em.create(ProductSchema, {
    id: newId('prd'),
    merchantId,
    productFamilyId: familyId,
    name: `Plan ${tier}`,
    description: null,
    type: 'recurring',
    tierOrder: tier,
    status: 'active',
    metadata: null,
    deletedAt: null,
  } as Product);
  await em.flush();
  const offer = em.create(OfferSchema, {
    id: newId('ofr'),
    merchantId,
    productId: product.id,
    name: `Offer ${tier}`,
    slug: `offer-${tier}`,
    description: null,
    billingCycle: fixture.billingCycle ?? 'monthly',
    customBillingDays: null,
    cycleLimit: null,
    freeTrial: fixture.freeTrial ?? false,
    trialDays: fixture.trialDays ?? (fixture.freeTrial ? 7 : null),
    setupCharge: fixture.setupCharge ?? false,
    renewAfterCycleLimit: false,
    renewalOfferId: null,
    isDefault: fixture.isDefault ?? true,
    status: 'active',
    deletedAt: null,
  } as Offer);
  await em.flush();
  const priceFixtures = fixture.prices ?? [
    { currency: 'BRL', amount: 4990, isDefault: true },
    { currency: 'USD', amount: 999 },
  ];
  const prices = priceFixtures.map((price) =>
    em.create(OfferPriceSchema, {
      id: newId('opr'),
      merchantId,
      offerId: offer.id,
      currency: price.currency,
      amount: price.amount,
      firstChargeAmount: price.firstChargeAmount ?? null,
      isDefault: price.isDefault ?? false,
      deletedAt: null,
    } as OfferPrice),
  );
  await em.flush();
  return { offer, prices, product };
}
