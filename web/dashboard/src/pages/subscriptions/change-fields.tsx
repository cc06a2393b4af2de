/** The change forms' fields: the offer to move to (with a preview of the change) and the card to bill. */
import { call, query, type Answer, type Item, type Page } from '../../api';
import { label, money } from '../../format';
import { BEHAVIOURS } from '../../subscription-rules';
import { ErrorNote, Field, Notice, inputValue, useLoad } from '../../ui';
import type { Subscription } from './model';

/** A listed offer; the offer's own answer also has its prices. */
type Offer = Item<'getMerchantOffers'> & Partial<Pick<Answer<'getMerchantOffersId'>, 'prices'>>;

type Product = Pick<Item<'getMerchantProducts'>, 'id' | 'name'>;

type Instrument = Item<'getMerchantPaymentInstruments'>;

/**
 * The products whose offers a subscription may move to (the API refuses the others, OFFER_NOT_IN_FAMILY): its
 * family's products, or only its own product when that product has no family.
 */
async function eligibleProducts(sub: Subscription): Promise<Product[]> {
  if (!sub.product_family_id) return [{ id: sub.product_id, name: sub.product_name }];
  const page = await call<Page<Product>>(
    'GET',
    `/merchant/products${query({ product_family_id: sub.product_family_id, limit: 100 })}`,
  );
  return page.data;
}

/** A family's offer pair charges as its transition says; a standalone product's change waits for the renewal. */
async function changeBehaviour(sub: Subscription, toOfferId: string): Promise<{ change_charge_behavior: string }> {
  if (!sub.product_family_id) return { change_charge_behavior: 'next_renew' };
  return call<Answer<'getMerchantOfferTransitionsEffectiveBehavior'>>(
    'GET',
    `/merchant/offer-transitions/effective-behavior${query({ from_offer_id: sub.current_offer_id, to_offer_id: toOfferId })}`,
  );
}

/** Offers the subscription can move to (same family, active, recurring), with a preview of the change. */
export function ChangeOfferFields(props: { sub: Subscription; chosen: string; choose: (offerId: string) => void }) {
  const { sub } = props;
  const offers = useLoad(async () => {
    const products = await eligibleProducts(sub);
    const lists = await Promise.all(
      products.map((p) =>
        call<Page<Offer>>('GET', `/merchant/offers${query({ product_id: p.id, status: 'active', limit: 100 })}`).then(
          (page) => page.data.map((offer) => ({ ...offer, product: p.name })),
        ),
      ),
    );
    // One-time offers (billing cycle none) cannot carry a subscription: the API answers OFFER_UNAVAILABLE.
    return lists.flat().filter((offer) => offer.id !== sub.current_offer_id && offer.billing_cycle !== 'none');
  }, [sub.product_family_id, sub.product_id, sub.current_offer_id]);
  const preview = useLoad(async () => {
    if (!props.chosen) return null;
    const [behaviour, offer] = await Promise.all([
      changeBehaviour(sub, props.chosen),
      call<Offer>('GET', `/merchant/offers/${props.chosen}`),
    ]);
    return { behaviour, offer, price: offer.prices?.find((p) => p.currency === sub.currency) ?? null };
  }, [props.chosen]);
  if (offers.state === 'loading') return <p role="status">Loading the family's offers…</p>;
  if (offers.state === 'error') return <ErrorNote error={offers.error} retry={offers.reload} />;
  if (offers.data.length === 0) return <p class="empty">No other active offer in this product family.</p>;
  return (
    <>
      <Field
        label="New offer"
        hint={
          sub.product_family_id
            ? 'Only offers of the same product family.'
            : 'Only offers of the same product: it belongs to no product family.'
        }
      >
        {(a) => (
          <select {...a} required value={props.chosen} onChange={(e) => props.choose(inputValue(e))}>
            <option value="">Choose an offer</option>
            {offers.data.map((offer) => (
              <option key={offer.id} value={offer.id}>
                {offer.product} · {offer.name} ({label(offer.billing_cycle).toLowerCase()})
              </option>
            ))}
          </select>
        )}
      </Field>
      {props.chosen && preview.state === 'loading' && <p role="status">Working out the charge…</p>}
      {preview.state === 'error' && <ErrorNote error={preview.error} />}
      {preview.state === 'ready' && preview.data && (
        <Notice>
          <strong>What the customer is charged:</strong>{' '}
          {BEHAVIOURS[preview.data.behaviour.change_charge_behavior] ??
            label(preview.data.behaviour.change_charge_behavior)}{' '}
          {preview.data.price
            ? `New price: ${money(preview.data.price.amount, preview.data.price.currency)} ${cycleText(preview.data.offer.billing_cycle)} (now ${money(sub.current_amount, sub.currency)} ${cycleText(sub.billing_cycle)}).`
            : `The offer has no ${sub.currency} price: the change will be refused.`}
        </Notice>
      )}
    </>
  );
}

/** "per month", "per year"…; "per cycle" for custom periods. */
const cycleText = (cycle: string) =>
  (
    ({
      daily: 'per day',
      biweekly: 'every two weeks',
      monthly: 'per month',
      quarterly: 'per quarter',
      half_yearly: 'per half-year',
      yearly: 'per year',
    }) as Record<string, string>
  )[cycle] ?? 'per cycle';

const cardText = (i: Instrument) => `${label(i.card_brand)} ending ${i.last4} (expires ${i.exp_month}/${i.exp_year})`;

/** The card the subscription bills, as a person knows it (brand, last digits), with its id. */
export function PaymentMethod(props: { sub: Subscription }) {
  const { customer_id: customerId, payment_instrument_id: instrumentId } = props.sub;
  const cards = useLoad(
    () =>
      call<Page<Instrument>>('GET', `/merchant/payment-instruments${query({ customer_id: customerId, limit: 100 })}`),
    [customerId, instrumentId],
  );
  const card = cards.state === 'ready' ? cards.data.data.find((i) => i.id === instrumentId) : undefined;
  return (
    <span data-testid="payment-method">
      {card && `${cardText(card)} · `}
      <code>{instrumentId}</code>
    </span>
  );
}

export function ChangeInstrumentFields(props: { sub: Subscription; chosen: string; choose: (id: string) => void }) {
  const instruments = useLoad(
    () =>
      call<Page<Instrument>>(
        'GET',
        `/merchant/payment-instruments${query({ customer_id: props.sub.customer_id, status: 'active', limit: 100 })}`,
      ),
    [props.sub.customer_id],
  );
  if (instruments.state === 'loading') return <p role="status">Loading the customer's cards…</p>;
  if (instruments.state === 'error') return <ErrorNote error={instruments.error} retry={instruments.reload} />;
  const others = instruments.data.data.filter((i) => i.id !== props.sub.payment_instrument_id);
  if (others.length === 0)
    return <p class="empty">The customer has no other active card. They add one at a checkout.</p>;
  return (
    <Field label="Card to bill from now on">
      {(a) => (
        <select {...a} required value={props.chosen} onChange={(e) => props.choose(inputValue(e))}>
          <option value="">Choose a card</option>
          {others.map((i) => (
            <option key={i.id} value={i.id}>
              {cardText(i)}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}
