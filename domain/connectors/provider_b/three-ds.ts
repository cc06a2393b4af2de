/**
 * provider_b (Adyen-like) 3-D Secure: what to ask on /payments, the challenge in its answer, the verdict's
 * additionalData. Redirect 3-D Secure 2 (no `nativeThreeDS`): Adyen answers `RedirectShopper` with a GET redirect
 * `action` to its own authentication page, the buyer's browser comes back to `returnUrl` with `redirectResult`, and
 * only `POST /payments/details {details: {redirectResult}}` says how it ended (Adyen has no read of a payment).
 * See docs/api-decisions.md, "3-D Secure in each provider's dialect".
 */
import type { AuthorizeRequest, ProviderResult, ReturnParams } from '../connector';
import type { ThreeDsStatus } from '../../../workflows/lib/three-ds';
import { field } from '../http';

/**
 * The 3-D Secure part of a customer-initiated card payment: always the way back (an issuer may challenge even
 * unasked, under Adyen's dynamic 3-D Secure rules), `attemptAuthentication: always` when the attempt asks for it.
 * Nothing for a merchant-initiated charge (nobody is there to authenticate).
 */
export function threeDsRequestOf(request: AuthorizeRequest): Record<string, unknown> {
  const three = request.threeDs;
  if (!three || request.recurring || request.paymentMethod !== 'card') return {};
  return {
    returnUrl: three.returnUrl,
    channel: 'Web',
    ...(three.request ? { authenticationData: { attemptAuthentication: 'always' } } : {}),
  };
}

/**
 * The challenge page of a `RedirectShopper` answer: its redirect action's URL when the browser is sent there by GET
 * (what Adyen answers for redirect 3-D Secure 2). A redirect the browser must POST (`data`: 3-D Secure 1 to the
 * issuer's page) cannot be a link in next_action: null, and the answer stays a decline.
 */
export function challengeUrlOf(body: Record<string, unknown>): string | null {
  if (field.str(body.resultCode) !== 'RedirectShopper') return null;
  const action = field.obj(body.action);
  const method = (field.str(action.method) ?? 'GET').toUpperCase();
  if (action.type !== 'redirect' || method !== 'GET') return null;
  return field.str(action.url);
}

/** threeDAuthenticatedResponse (the issuer's EMV transStatus) → ours; Y is a challenge passed when one was shown. */
const AUTHENTICATED_RESPONSES: Readonly<Record<string, ThreeDsStatus>> = {
  Y: 'authenticated',
  A: 'frictionless',
  N: 'failed',
  R: 'failed',
  U: 'unsupported',
};

/**
 * How the card was authenticated, from the answer's additionalData (threeDAuthenticatedResponse, liabilityShift,
 * threeDSVersion, eci); null when it names no authentication (not offered, "N/A"). `challenged`: the answer follows
 * the buyer's challenge (/payments/details); an authentication Adyen reports on /payments itself had none.
 */
export function threeDsOf(additional: Record<string, unknown>, challenged: boolean): ProviderResult['threeDs'] {
  const response = field.str(additional.threeDAuthenticatedResponse);
  const status = response ? AUTHENTICATED_RESPONSES[response] : undefined;
  if (!status) return null;
  const shift = field.str(additional.liabilityShift);
  return {
    status: status === 'authenticated' && !challenged ? 'frictionless' : status,
    version: field.str(additional.threeDSVersion),
    eci: field.str(additional.eci),
    liability_shift: shift ? shift === 'true' : response === 'Y' || response === 'A',
  };
}

/** The `details` of /payments/details: the redirectResult the buyer's return carried, or null without one. */
export function redirectResultOf(returnParams: ReturnParams | undefined): string | null {
  const value = returnParams?.redirectResult;
  return typeof value === 'string' && value.length > 0 ? value : null;
}
