/**
 * "Copy a payment link": a checkout session for one price (POST /merchant/checkout-sessions) for a customer found by
 * e-mail, and its hosted page's URL. The hosted page needs the merchant's public key in the URL fragment; public
 * keys are meant for web pages, so the one typed (or issued on the API keys page) is remembered in this browser.
 */
import { useState } from 'preact/hooks';
import { call, query, type Answer, type Item, type Page } from '../../api';
import { money } from '../../format';
import { currentSession } from '../../session';
import { ErrorNote, Field, inputValue, useSubmit } from '../../ui';

type Price = Item<'getMerchantOffersOfferIdPrices'>;
type Customer = Item<'getMerchantCustomers'>;
type CheckoutSession = Answer<'postMerchantCheckoutSessions'>;

const PUBLIC_KEY = /^pk_live_mer_[0-9A-Za-z]{32}$/;
const storageKey = () => `switchyard.dashboard.public-key.${currentSession()?.merchantId ?? ''}`;

export function rememberPublicKey(key: string): void {
  localStorage.setItem(storageKey(), key);
}

async function customerByEmail(email: string): Promise<Customer> {
  const wanted = email.trim().toLowerCase();
  const found = await call<Page<Customer>>('GET', `/merchant/customers${query({ q: wanted, limit: 100 })}`);
  const customer = found.data.find((c) => c.email === wanted);
  if (!customer) throw new Error(`No customer has the e-mail ${wanted}: create the customer first (POST /customers).`);
  return customer;
}

export function PaymentLink(props: { offerId: string; price: Price; close: () => void }) {
  const { price } = props;
  const [email, setEmail] = useState('');
  const [publicKey, setPublicKey] = useState(() => localStorage.getItem(storageKey()) ?? '');
  const [url, setUrl] = useState<string | null>(null);
  const { busy, error, submit } = useSubmit(async () => {
    const key = publicKey.trim();
    if (!PUBLIC_KEY.test(key))
      throw new Error('A public key starts with pk_live_mer_ (issue one on the API keys page).');
    const customer = await customerByEmail(email);
    const session = await call<CheckoutSession>('POST', '/merchant/checkout-sessions', {
      offer_id: props.offerId,
      customer_id: customer.id,
      selected_currency: price.currency,
    });
    rememberPublicKey(key);
    const link = `${location.origin}/checkout/${session.id}#key=${key}`;
    setUrl(link);
    await navigator.clipboard?.writeText(link).catch(() => undefined);
  });
  return (
    <form class="confirm" aria-label="Payment link" onSubmit={submit}>
      <p>A checkout for {money(price.amount, price.currency)}: the customer pays it on the hosted page.</p>
      <Field label="Customer e-mail">
        {(a) => <input {...a} type="email" required value={email} onInput={(e) => setEmail(inputValue(e))} />}
      </Field>
      <Field label="Public key" hint="pk_live_mer_…: it goes in the link, which is safe for public keys.">
        {(a) => <input {...a} required value={publicKey} onInput={(e) => setPublicKey(inputValue(e))} />}
      </Field>
      <ErrorNote error={error} />
      {url && (
        <Field label="Payment link URL" hint="Copied to the clipboard.">
          {(a) => <input {...a} readOnly value={url} onFocus={(e) => e.currentTarget.select()} />}
        </Field>
      )}
      <div class="button-row">
        <button type="submit" class="small" disabled={busy}>
          {busy ? 'Working…' : 'Create the link'}
        </button>
        <button type="button" class="secondary small" onClick={props.close}>
          Close
        </button>
      </div>
    </form>
  );
}
