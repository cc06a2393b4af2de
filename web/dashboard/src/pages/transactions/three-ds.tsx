/** How an attempt's card was authenticated (3-D Secure), as operators read it on the payment page. */
import type { Item } from '../../api';
import { label } from '../../format';

type ThreeDs = Item<'getMerchantTransactionsTransactionIdAttempts'>['three_ds'];

/**
 * "3-D Secure: Authenticated · version 2.2.0 · ECI 05 · liability shifted": the status, the protocol version and
 * ECI when the issuer gave them, and who bears a fraud chargeback. Nothing for attempts without a card check.
 */
export function ThreeDsLine(props: { threeDs: ThreeDs }) {
  const t = props.threeDs;
  if (!t) return null;
  return (
    <p class="meta three-ds">
      3-D Secure: {label(t.status)}
      {t.version && ` · version ${t.version}`}
      {t.eci && ` · ECI ${t.eci}`}
      {t.liability_shift ? ' · liability shifted' : ' · liability not shifted'}
    </p>
  );
}
