/**
 * Catalog: products (GET /merchant/products) → a product's offers → each offer's prices, with "Copy a payment link"
 * on every price (catalog/payment-link.tsx). Owners and admins add a product, and an offer with its price; viewers
 * read.
 */
import { useState } from 'preact/hooks';
import { call, query, type Answer, type Item, type Page } from '../api';
import { day, label, money, toMinor } from '../format';
import { DataTable, ListState, usePagedList } from '../list';
import { navigate } from '../router';
import { canManageMerchant, Chip, ErrorNote, Field, inputValue, Link, PageHeader, useLoad, useSubmit } from '../ui';
import { PaymentLink } from './catalog/payment-link';

type Product = Item<'getMerchantProducts'>;
type Offer = Item<'getMerchantOffers'>;
type Price = Item<'getMerchantOffersOfferIdPrices'>;

const CYCLES = ['none', 'monthly', 'yearly', 'quarterly', 'half_yearly', 'biweekly', 'daily'] as const;

function NewProduct() {
  const [name, setName] = useState('');
  const [type, setType] = useState<'one_time' | 'recurring'>('one_time');
  const { busy, error, submit } = useSubmit(async () => {
    const product = await call<Answer<'postMerchantProducts'>>('POST', '/merchant/products', {
      name,
      type,
      status: 'active',
    });
    navigate(`/catalog/${product.id}`);
  });
  return (
    <form class="card" aria-label="New product" onSubmit={submit}>
      <h2>New product</h2>
      <Field label="Product name">
        {(a) => <input {...a} required maxLength={255} value={name} onInput={(e) => setName(inputValue(e))} />}
      </Field>
      <Field label="Sold">
        {(a) => (
          <select {...a} value={type} onChange={(e) => setType(inputValue(e) as 'one_time' | 'recurring')}>
            <option value="one_time">Once</option>
            <option value="recurring">As a subscription</option>
          </select>
        )}
      </Field>
      <ErrorNote error={error} />
      <button type="submit" disabled={busy}>
        {busy ? 'Adding…' : 'Add product'}
      </button>
    </form>
  );
}

export function Catalog() {
  const list = usePagedList<Product>('/merchant/products');
  return (
    <>
      <PageHeader title="Catalog" />
      <p>What you sell: products, their offers (how they are sold) and each offer’s prices.</p>
      {canManageMerchant() && <NewProduct />}
      <DataTable
        loaded={list.loaded}
        onPage={list.onPage}
        what="products"
        caption="Products"
        head={['Product', 'Sold', 'Status', 'Created']}
        empty={<p>No products yet.</p>}
        row={(product) => (
          <tr key={product.id} data-product={product.id}>
            <td>
              <Link to={`/catalog/${product.id}`}>{product.name}</Link>
            </td>
            <td>{product.type === 'recurring' ? 'As a subscription' : 'Once'}</td>
            <td>
              <Chip status={product.status} />
            </td>
            <td>{day(product.created_at)}</td>
          </tr>
        )}
      />
    </>
  );
}

function NewOffer(props: { product: Product; added: () => void }) {
  const recurring = props.product.type === 'recurring';
  const [name, setName] = useState('');
  const [cycle, setCycle] = useState<string>(recurring ? 'monthly' : 'none');
  const [amount, setAmount] = useState('');
  const [currency, setCurrency] = useState('BRL');
  const { busy, error, submit } = useSubmit(async () => {
    const minor = toMinor(amount, currency);
    if (!Number.isInteger(minor) || minor < 0) throw new Error('The price is an amount such as 49.90.');
    await call('POST', '/merchant/offers', {
      product_id: props.product.id,
      name,
      slug: `${
        name
          .toLowerCase()
          .replace(/[^a-z0-9]+/g, '-')
          .replace(/^-|-$/g, '') || 'offer'
      }-${Date.now().toString(36)}`,
      billing_cycle: cycle,
      status: 'active',
      prices: [{ currency, amount: minor, is_default: true }],
    });
    setName('');
    setAmount('');
    props.added();
  });
  return (
    <form class="card" aria-label="New offer" onSubmit={submit}>
      <h2>New offer</h2>
      <Field label="Offer name" hint="e.g. “One bag” or “Pro monthly”.">
        {(a) => <input {...a} required maxLength={255} value={name} onInput={(e) => setName(inputValue(e))} />}
      </Field>
      <Field label="Billing">
        {(a) => (
          <select {...a} value={cycle} onChange={(e) => setCycle(inputValue(e))}>
            {CYCLES.filter((c) => (recurring ? c !== 'none' : c === 'none')).map((c) => (
              <option key={c} value={c}>
                {c === 'none' ? 'Once' : label(c)}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field label="Price" hint="In the currency below, e.g. 49.90.">
        {(a) => <input {...a} required inputMode="decimal" value={amount} onInput={(e) => setAmount(inputValue(e))} />}
      </Field>
      <Field label="Currency">
        {(a) => (
          <input
            {...a}
            required
            maxLength={3}
            value={currency}
            onInput={(e) => setCurrency(inputValue(e).toUpperCase())}
          />
        )}
      </Field>
      <ErrorNote error={error} />
      <button type="submit" disabled={busy}>
        {busy ? 'Adding…' : 'Add offer'}
      </button>
    </form>
  );
}

function OfferPrices(props: { offer: Offer }) {
  const { offer } = props;
  const prices = useLoad(
    () => call<Page<Price>>('GET', `/merchant/offers/${offer.id}/prices${query({ limit: 100 })}`),
    [offer.id],
  );
  const [linkFor, setLinkFor] = useState<Price | null>(null);
  return (
    <section class="card" aria-label={offer.name}>
      <h2>{offer.name}</h2>
      <p class="meta">
        {offer.billing_cycle === 'none' ? 'Sold once' : `Billed ${label(offer.billing_cycle).toLowerCase()}`}
        {offer.free_trial && offer.trial_days ? ` · ${offer.trial_days}-day free trial` : ''} ·{' '}
        <Chip status={offer.status} />
      </p>
      <ListState loaded={prices} what="prices" empty={<p>No price yet.</p>}>
        {(items) => (
          <ul class="plain">
            {items.map((price) => (
              <li key={price.id} data-price={price.id}>
                <strong>{money(price.amount, price.currency)}</strong>
                {price.first_charge_amount !== null && (
                  <span class="meta"> (first charge {money(price.first_charge_amount, price.currency)})</span>
                )}
                {price.is_default && <span class="meta"> · default</span>}{' '}
                <button type="button" class="secondary small" onClick={() => setLinkFor(price)}>
                  Copy a payment link
                </button>
              </li>
            ))}
          </ul>
        )}
      </ListState>
      {linkFor && <PaymentLink offerId={offer.id} price={linkFor} close={() => setLinkFor(null)} />}
    </section>
  );
}

export function CatalogProduct(props: { id: string }) {
  const product = useLoad(() => call<Product>('GET', `/merchant/products/${props.id}`), [props.id]);
  const offers = usePagedList<Offer>('/merchant/offers', { product_id: props.id }, 50);
  const back = { to: '/catalog', text: 'Catalog' };
  if (product.state === 'loading') return <p role="status">Loading the product…</p>;
  if (product.state === 'error') return <ErrorNote error={product.error} retry={product.reload} />;
  return (
    <>
      <PageHeader title={product.data.name} back={back} />
      {product.data.description && <p>{product.data.description}</p>}
      <ListState loaded={offers.loaded} what="offers" empty={<p>No offers yet: add one to sell this product.</p>}>
        {(items) => items.map((offer) => <OfferPrices key={offer.id} offer={offer} />)}
      </ListState>
      {canManageMerchant() && <NewOffer product={product.data} added={offers.loaded.reload} />}
    </>
  );
}
