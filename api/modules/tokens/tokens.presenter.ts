/** Document 3's Token: only non-sensitive parts (the presenter never reads the sealed PAN, name or CVC). */
import type { CardToken } from '../../../db/entities';
import { effectiveTokenStatus } from './tokens.service';

export function presentToken(token: CardToken, now: Date) {
  return {
    tokenId: token.id,
    merchant_id: token.merchantId,
    purpose: token.purpose,
    last4: token.last4,
    card_brand: token.cardBrand,
    exp_month: String(token.expMonth).padStart(2, '0'),
    exp_year: String(token.expYear),
    status: effectiveTokenStatus(token, now),
    expires_at: token.expiresAt.toISOString(),
    created_at: token.createdAt.toISOString(),
  };
}
