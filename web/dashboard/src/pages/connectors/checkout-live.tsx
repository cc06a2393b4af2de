/** What buyers can pay with at the hosted checkout right now, from routing (GET /merchant/checkout-methods). */
import { call, type Answer } from '../../api';
import { label } from '../../format';
import { Chip, ErrorNote, Link, Table, useLoad } from '../../ui';

/** GET /merchant/checkout-methods: per checkout method, the connectors routing can send it to. */
type CheckoutMethods = Answer<'getMerchantCheckoutMethods'>;

const METHOD_NAMES: Record<CheckoutMethods['methods'][number]['payment_method'], string> = {
  credit_card: 'Card',
  pix: 'Pix',
  boleto: 'Boleto',
  wallet: 'Wallets (Apple Pay, Google Pay)',
};

/** What buyers can pay with at the hosted checkout right now, and through which connectors (from routing). */
export function CheckoutLive() {
  const loaded = useLoad(() => call<CheckoutMethods>('GET', '/merchant/checkout-methods'), []);
  return (
    <section aria-labelledby="checkout-live">
      <h2 id="checkout-live">Live at checkout</h2>
      <p class="hint">
        The hosted checkout offers a method only when a routing profile sends it to an active connector that takes it.
        Adding a connector changes nothing for buyers until routing uses it: <Link to="/routing">edit routing</Link>.
      </p>
      {loaded.state === 'loading' && <p role="status">Loading the checkout methods…</p>}
      {loaded.state === 'error' && <ErrorNote error={loaded.error} retry={loaded.reload} />}
      {loaded.state === 'ready' && (
        <Table caption="Checkout methods" head={['Method', 'Buyers see it', 'Through', 'Card brands']}>
          {loaded.data.methods.map((m) => (
            <tr key={m.payment_method} data-method={m.payment_method}>
              <td>{METHOD_NAMES[m.payment_method]}</td>
              <td>
                <Chip status={m.offered ? 'active' : 'expired'} text={m.offered ? 'Offered' : 'Not offered'} />
              </td>
              <td>
                {m.connectors.length > 0
                  ? m.connectors.map((c) => c.name).join(', ')
                  : 'No connector in routing takes it'}
              </td>
              <td>{m.payment_method === 'credit_card' ? m.card_brands.map(brandName).join(', ') || '—' : '—'}</td>
            </tr>
          ))}
        </Table>
      )}
    </section>
  );
}

const BRAND_NAMES: Record<string, string> = { amex: 'American Express', jcb: 'JCB', diners: 'Diners Club' };

const brandName = (brand: string) => BRAND_NAMES[brand] ?? label(brand);
