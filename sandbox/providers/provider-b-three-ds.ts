/**
 * provider_b's redirect 3-D Secure 2, as Adyen runs it: `/payments` with a `returnUrl` (and
 * `authenticationData.attemptAuthentication: always` when the merchant asks) answers a card the issuer challenges
 * `RedirectShopper` with a GET redirect `action` (the shared challenge page, sandbox/challenge.ts); the page sends the
 * buyer back to the returnUrl with `redirectResult`; `POST /payments/details {details: {redirectResult}}` answers
 * the payment as it ended, its additionalData saying how the card was authenticated. Adyen's redirectResult is an
 * opaque blob it makes when the challenge ends; here it is an opaque token, fixed when the payment is created and
 * carried only by the return URL.
 */
import type { PaymentInput } from '../engine';
import { read } from '../http';
import { randomChars, type Payment } from '../store';

/** redirectResult → the payment it completes. */
export class RedirectResults {
  private readonly payments = new Map<string, string>();

  issue(paymentId: string): string {
    const token = `${randomChars(12, 'alnum')}!${randomChars(48, 'alnum')}`;
    this.payments.set(token, paymentId);
    return token;
  }

  paymentOf(redirectResult: string | null): string | null {
    return (redirectResult && this.payments.get(redirectResult)) ?? null;
  }
}

/**
 * The request's 3-D Secure: a returnUrl lets the issuer challenge (Adyen's dynamic 3-D Secure: a demanding issuer
 * challenges even unasked); `attemptAuthentication: always` asks for it (a frictionless card is then authenticated);
 * `never`, or no returnUrl, runs none (a demanding issuer declines). A ContAuth payment has nobody to challenge.
 */
export function threeDsRequest(body: Record<string, unknown>, redirectResult: string): PaymentInput['threeDs'] {
  const returnUrl = read.str(body.returnUrl);
  const attempt = read.str(read.obj(body.authenticationData).attemptAuthentication);
  if (!returnUrl || attempt === 'never') return undefined;
  let back: URL;
  try {
    back = new URL(returnUrl);
  } catch {
    return undefined;
  }
  back.searchParams.set('redirectResult', redirectResult);
  return {
    request: attempt === 'always',
    returnUrl: back.toString(),
    offSession: read.str(body.shopperInteraction) === 'ContAuth',
  };
}

/** A payment awaiting its challenge: RedirectShopper, the browser sent to the challenge page by GET. */
export function redirectShopper(payment: Payment): Record<string, unknown> | null {
  if (payment.state !== 'requires_action' || !payment.threeDs?.challengeUrl) return null;
  return {
    resultCode: 'RedirectShopper',
    action: { paymentMethodType: 'scheme', url: payment.threeDs.challengeUrl, method: 'GET', type: 'redirect' },
  };
}

/** How the card was authenticated, in additionalData's words; nothing when no authentication ran or it is open. */
export function threeDsAdditionalData(payment: Payment): Record<string, string> {
  const result = payment.threeDs?.result;
  if (!result) return {};
  const passed = result === 'authenticated';
  return {
    threeDOffered: 'true',
    threeDOfferedResponse: 'Y',
    threeDAuthenticated: String(passed),
    threeDAuthenticatedResponse: passed ? 'Y' : 'N',
    liabilityShift: String(passed),
    threeDSVersion: '2.2.0',
    eci: passed ? '05' : '07',
  };
}
