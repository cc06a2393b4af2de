/** "Simulate a charge": the plan …/simulate returns for a charge's method, brand, currency, amount and country. */
import { useState } from 'preact/hooks';
import { call, type Answer } from '../../api';
import { label, money, toMinor } from '../../format';
import { useProviderName } from '../../providers';
import { ErrorNote, Field, inputValue, useSubmit } from '../../ui';
import type { Profile, ConnectorOption } from './model';

type Simulation = Answer<'postMerchantRoutingProfilesProfileIdSimulate'>;

const REASONS: Record<string, string> = {
  matched: 'the rules chose it',
  fallback: 'fallback',
  default: 'default connector',
  unknown_connector: 'the connector no longer exists',
  inactive: 'the connector is inactive',
  circuit_open: 'its circuit is open',
  unsupported_payment_method: 'it does not take this method',
  unsupported_currency: 'it does not take this currency',
  unsupported_card_brand: 'it does not take this card brand',
};

/** A connector skipped as the rules' choice and again as the default is one line, not two. */
const uniqueSkips = (skipped: Simulation['skipped']) =>
  skipped.filter(
    (skip, at) =>
      skipped.findIndex((s) => s.merchant_connector_id === skip.merchant_connector_id && s.reason === skip.reason) ===
      at,
  );

const CHARGE_METHODS = ['credit_card', 'debit_card', 'pix', 'boleto', 'wallet'];

const BRANDS = ['visa', 'mastercard', 'amex', 'elo', 'hipercard', 'discover', 'diners', 'jcb'];

/** The charge's plan from …/simulate; connectors are named from the page's connector list. */
export function Simulate(props: { base: string; profile: Profile; connectors: ConnectorOption[] }) {
  const providerName = useProviderName();
  const fixed = props.profile.payment_method !== '*';
  const [method, setMethod] = useState<string>(fixed ? props.profile.payment_method : 'credit_card');
  const [brand, setBrand] = useState('visa');
  const [currency, setCurrency] = useState('BRL');
  const [amount, setAmount] = useState('100.00');
  const [country, setCountry] = useState('');
  const [result, setResult] = useState<Simulation | null>(null);
  const card = method === 'credit_card' || method === 'debit_card';
  const minor = /^[A-Z]{3}$/.test(currency) ? toMinor(amount, currency) : NaN;
  const { busy, error, submit } = useSubmit(async () => {
    setResult(null);
    setResult(
      await call<Simulation>('POST', `${props.base}/simulate`, {
        payment_method: method,
        currency,
        amount: minor,
        ...(card ? { card_brand: brand } : {}),
        ...(card && country ? { bin_country: country.toUpperCase() } : {}),
        random_draw: 0.5,
      }),
    );
  });
  const nameOf = (id: string) => props.connectors.find((c) => c.id === id)?.name ?? id;
  return (
    <section aria-labelledby="simulate">
      <h2 id="simulate">Simulate a charge</h2>
      <p class="hint">Which connectors would this charge try, in order? Nothing is charged.</p>
      <form onSubmit={submit} class="narrow">
        <Field label="Payment method">
          {(a) => (
            <select {...a} value={method} disabled={fixed} onChange={(e) => setMethod(inputValue(e))}>
              {CHARGE_METHODS.map((m) => (
                <option key={m} value={m}>
                  {label(m)}
                </option>
              ))}
            </select>
          )}
        </Field>
        {card && (
          <Field label="Card brand">
            {(a) => (
              <select {...a} value={brand} onChange={(e) => setBrand(inputValue(e))}>
                {BRANDS.map((b) => (
                  <option key={b} value={b}>
                    {label(b)}
                  </option>
                ))}
              </select>
            )}
          </Field>
        )}
        <Field label="Currency" hint="Three letters, e.g. BRL or USD.">
          {(a) => (
            <input
              {...a}
              required
              pattern="[A-Za-z]{3}"
              maxLength={3}
              value={currency}
              onInput={(e) => setCurrency(inputValue(e).toUpperCase())}
            />
          )}
        </Field>
        <Field
          label="Amount"
          hint={
            Number.isFinite(minor) ? `${money(minor, currency)} (${minor} in minor units)` : 'A number, e.g. 100.00'
          }
        >
          {(a) => (
            <input {...a} required inputMode="decimal" value={amount} onInput={(e) => setAmount(inputValue(e))} />
          )}
        </Field>
        {card && (
          <Field label="Card country (optional)" hint="Two letters, e.g. BR.">
            {(a) => (
              <input
                {...a}
                pattern="[A-Za-z]{2}"
                maxLength={2}
                value={country}
                onInput={(e) => setCountry(inputValue(e))}
              />
            )}
          </Field>
        )}
        <ErrorNote error={error} />
        <button type="submit" disabled={busy || !Number.isFinite(minor)}>
          {busy ? 'Simulating…' : 'Simulate'}
        </button>
      </form>
      {result && (
        <div aria-live="polite" data-testid="simulation">
          {result.plan.length === 0 ? (
            <p class="notice error" role="alert">
              No connector can take this charge: it would fail without reaching a provider.
            </p>
          ) : (
            <>
              <h3>Tried in this order</h3>
              <ol class="plan" aria-label="Simulated plan">
                {result.plan.map((step) => (
                  <li key={step.merchant_connector_id}>
                    <strong>{step.connector_name ?? nameOf(step.merchant_connector_id)}</strong>
                    {step.provider_slug && ` (${providerName(step.provider_slug)})`} —{' '}
                    {REASONS[step.reason] ?? step.reason}
                  </li>
                ))}
              </ol>
            </>
          )}
          {result.skipped.length > 0 && (
            <>
              <h3>Skipped</h3>
              <ul aria-label="Skipped connectors">
                {uniqueSkips(result.skipped).map((skip) => (
                  <li key={`${skip.merchant_connector_id}-${skip.reason}`}>
                    {nameOf(skip.merchant_connector_id)}: {REASONS[skip.reason] ?? skip.reason}
                  </li>
                ))}
              </ul>
            </>
          )}
        </div>
      )}
    </section>
  );
}
