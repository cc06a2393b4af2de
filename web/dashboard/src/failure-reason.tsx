/**
 * Why a payment failed, as its headline: the API's failure_code (one vocabulary whatever the provider) in words a
 * person acts on, with the code and the provider's own code beside it for support. A code without words here is
 * shown as it is: the API stays the source of the vocabulary.
 */
import { Notice } from './ui';

const REASONS: Record<string, string> = {
  insufficient_funds: 'Insufficient funds: the card has not enough funds or credit for this amount.',
  do_not_honor: 'The bank declined the payment without a reason: the customer should contact their bank.',
  generic_decline: 'The provider declined the payment.',
  expired_card: 'The card has expired.',
  incorrect_cvc: 'The security code (CVC) is wrong.',
  incorrect_expiry: 'The expiry date is wrong.',
  invalid_number: 'The card number is not valid.',
  lost_or_stolen: 'The card was reported lost or stolen.',
  fraudulent: 'Declined as suspected fraud.',
  restricted_card: 'The card cannot be used for this payment.',
  card_not_supported: 'The card is not accepted for this payment.',
  currency_not_supported: 'The card cannot be charged in this currency.',
  authentication_required: 'The bank requires 3-D Secure authentication of the customer.',
  card_velocity_exceeded: 'The card went over its limit of amount or number of payments.',
  try_again_later: 'The bank could not be reached: the same card may succeed later.',
  invalid_amount: 'The amount was not accepted.',
  processing_error: 'The provider could not process the payment (an error, not a decline).',
  no_route: 'No connector of the routing plan could take this payment (method, card brand, currency or amount).',
};

export function FailureHeadline(props: {
  tx: { status: string; failure_code: string | null; failure_message: string | null; provider_code: string | null };
}) {
  const { tx } = props;
  if (!tx.failure_code) return null;
  return (
    <Notice tone="warn">
      <p class="failure-headline">
        <strong>{REASONS[tx.failure_code] ?? tx.failure_message ?? tx.failure_code}</strong>
      </p>
      <p class="meta">
        failure_code <code>{tx.failure_code}</code>
        {tx.provider_code && (
          <>
            {' '}
            · provider code <code>{tx.provider_code}</code>
          </>
        )}
      </p>
    </Notice>
  );
}
