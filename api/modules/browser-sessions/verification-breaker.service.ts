/** Tells the merchant, in its activity log, that the decline-ratio breaker paused its browser card verifications. */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { BrowserSession } from '../../../db/entities';
import { recordActivity } from '../../../domain/merchants/merchants.activity';
import { BREAKER_DECLINE_SHARE, BREAKER_MIN_VERIFICATIONS, DECLINE_WINDOW_SECONDS } from '../../http/browser-limits';

export async function noticeVerificationsPaused(em: EntityManager, session: BrowserSession, keyId: string) {
  recordActivity(em, {
    organizationId: session.organizationId,
    merchantId: session.merchantId,
    action: 'card_verifications.paused',
    actor: { type: 'system', id: null },
    changes: {
      public_key_id: keyId,
      reason: `at least ${BREAKER_DECLINE_SHARE * 100}% of ${BREAKER_MIN_VERIFICATIONS} or more browser card verifications were declined`,
      paused_for_seconds_at_most: DECLINE_WINDOW_SECONDS,
    },
  });
  await em.flush();
}
