/**
 * 3-D Secure as every layer reads it: how an attempt was authenticated (the API's `three_ds` object, stored as is on
 * the attempt), what a challenge waits on, and the failure codes a charge ends with when authentication does not
 * complete. Pure: the charge workflow, the activities, the adapters and the API share it.
 */

export const THREE_DS_STATUSES = [
  'not_requested',
  'frictionless',
  'challenged',
  'authenticated',
  'failed',
  'abandoned',
  'unsupported',
] as const;
export type ThreeDsStatus = (typeof THREE_DS_STATUSES)[number];

/** An attempt's authentication, as GET /transactions/:id/attempts shows it. */
export interface ThreeDs {
  /** Whether we asked the provider to authenticate (require_3ds always / if_supported on a provider that can). */
  requested: boolean;
  status: ThreeDsStatus;
  /** The protocol version the issuer used ("2.2.0"); null when no authentication ran. */
  version: string | null;
  /** The Electronic Commerce Indicator the network returned ("05", "02"…); null when none. */
  eci: string | null;
  /** Whether fraud chargebacks move to the issuer (an authenticated or attempted authentication). */
  liability_shift: boolean;
}

/** What an attempt row keeps besides: while a challenge is open, where the buyer goes and until when. */
export interface StoredThreeDs extends ThreeDs {
  redirect_url?: string | null;
  expires_at?: string | null;
}

/** The buyer's next step while a charge waits for a challenge (POST/GET /transactions: next_action). */
export interface NextAction {
  type: 'redirect_to_url';
  url: string;
  expires_at: string;
}

export const notRequested = (requested = false): ThreeDs => ({
  requested,
  status: 'not_requested',
  version: null,
  eci: null,
  liability_shift: false,
});

/**
 * The record of a card attempt whose answer says nothing of an authentication: none ran (`not_requested`, asked for
 * or not), or the provider's adapter runs none (`unsupported`).
 */
export const unauthenticated = (requested: boolean, providerRunsThreeDs: boolean): StoredThreeDs => ({
  ...notRequested(requested),
  status: providerRunsThreeDs ? 'not_requested' : 'unsupported',
});

/** A provider's answer that is a challenge for the buyer: pending, with the challenge's URL. */
export const isChallenge = <A extends { outcome: string; challengeUrl?: string | null }>(
  answer: A,
): answer is A & { challengeUrl: string } => answer.outcome === 'pending' && Boolean(answer.challengeUrl);

/** Failure codes of a charge whose authentication did not complete (provider-independent). */
export const AUTHENTICATION_FAILED = 'authentication_failed';
export const AUTHENTICATION_ABANDONED = 'authentication_abandoned';
export const MERCHANT_WEBSITE_REQUIRED = 'merchant_website_required';

/** The next action an attempt's open challenge asks of the buyer; null once it is over. */
export const nextActionOf = (threeDs: StoredThreeDs | null | undefined): NextAction | null =>
  threeDs?.status === 'challenged' && threeDs.redirect_url && threeDs.expires_at
    ? { type: 'redirect_to_url', url: threeDs.redirect_url, expires_at: threeDs.expires_at }
    : null;

/** The API's three_ds object of a stored record (without the challenge's URL and deadline). */
export const presentThreeDs = (threeDs: StoredThreeDs): ThreeDs => ({
  requested: threeDs.requested,
  status: threeDs.status,
  version: threeDs.version,
  eci: threeDs.eci,
  liability_shift: threeDs.liability_shift,
});
