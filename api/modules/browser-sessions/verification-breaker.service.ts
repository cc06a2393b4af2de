/**
 * Tells the merchant that the decline-ratio breaker is on — in its activity log and as a card_verifications.paused
 * event (webhooks) — so it can choose stronger checks (CAPTCHA, 3-D Secure) for its checkout. Only the browser
 * sources that declined are paused; the notice says so, and carries no addresses, card data or fingerprints.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { BrowserSession } from '../../../db/entities';
import { recordActivity } from '../../../domain/merchants/merchants.activity';
import { recordEvent } from '../../../domain/events/events.outbox';
import { BREAKER_DECLINE_SHARE, BREAKER_MIN_VERIFICATIONS } from '../../http/browser-limits';

const PAUSED_SOURCES = ['browser_session', 'checkout_session', 'client_address', 'card'];

export async function noticeVerificationsPaused(
  em: EntityManager,
  session: BrowserSession,
  keyId: string,
  windowEndsAt: Date,
) {
  const scope = { organizationId: session.organizationId, merchantId: session.merchantId };
  await em.transactional(async (tx) => {
    recordActivity(tx, {
      ...scope,
      action: 'card_verifications.paused',
      actor: { type: 'system', id: null },
      changes: {
        public_key_id: keyId,
        reason: `at least ${BREAKER_DECLINE_SHARE * 100}% of ${BREAKER_MIN_VERIFICATIONS} or more new-card verifications and payments from browsers were declined`,
        paused:
          'new-card verifications and payments from the browser sessions, checkout sessions, client addresses and cards that declined; other buyers are not paused',
        paused_until: windowEndsAt.toISOString(),
      },
    });
    await tx.flush();
    await recordEvent(tx, {
      ...scope,
      // About a public key, which is live (every key is): not test data.
      livemode: true,
      type: 'card_verifications.paused',
      object: {
        object: 'card_verifications_pause',
        merchant_id: session.merchantId,
        public_key_id: keyId,
        paused: PAUSED_SOURCES,
        window_ends_at: windowEndsAt.toISOString(),
      },
    });
  });
}
