/**
 * Deletes rows whose purpose has lapsed: expired idempotency keys and finished rate-limit windows; and wipes the
 * sealed PAN, name and CVC of expired card tokens; and the provider-webhook receipts past their retention; and the
 * Dashboard's spent credentials (dead refresh-token families, used or expired reset tokens) and sent e-mail. Each
 * table's SQL lives with its owner (db/repositories/, the mail outbox in domain/mail/).
 */
import type { Orm } from '../db/orm';
import { wipeExpiredTokens } from '../db/repositories/card-tokens.repository';
import { purgeExpiredKeys } from '../db/repositories/idempotency-keys.repository';
import { LONGEST_WINDOW_SECONDS, purgeWindows } from '../db/repositories/rate-limit-counters.repository';
import { purgeReceiptsBefore } from '../db/repositories/provider-webhook-receipts.repository';
import { purgeDeadFamilies } from '../db/repositories/refresh-tokens.repository';
import { purgeSpentTokens } from '../db/repositories/password-reset-tokens.repository';
import { purgeSentMail } from '../domain/mail/mail.outbox';

/** How long the organization Dashboard can look back at a connector's inbound webhooks (received and refused). */
export const PROVIDER_WEBHOOK_RECEIPT_RETENTION_DAYS = 30;

/** How long a sent e-mail's row stays (attempts, last error) for an operator asking "did it go out?". */
export const SENT_MAIL_RETENTION_HOURS = 24;

export interface HousekeepingDeps {
  orm: Orm;
  /** Rate-limit windows older than two windows (of the longest kind, the decline throttle's) can no longer be read. */
  rateLimitWindowSeconds: number;
}

export function createHousekeepingActivities({ orm, rateLimitWindowSeconds }: HousekeepingDeps) {
  return {
    async purgeExpiredIdempotencyKeys(): Promise<number> {
      return purgeExpiredKeys(orm.em.fork());
    },
    /** Card tokens live 15 minutes; their sealed card data must not wait for the next mint to be wiped. */
    async wipeExpiredCardTokens(): Promise<number> {
      const wiped = await orm.em.fork().transactional((tx) => wipeExpiredTokens(tx, new Date()));
      return wiped.tokens + wiped.cvcs;
    },
    async purgeProviderWebhookReceipts(): Promise<number> {
      const cutoff = new Date(Date.now() - PROVIDER_WEBHOOK_RECEIPT_RETENTION_DAYS * 86_400_000);
      return purgeReceiptsBefore(orm.em.fork(), cutoff);
    },
    /** Refresh-token families with nothing left to refresh, and reset tokens that are used or expired. */
    async purgeSpentDashboardTokens(): Promise<number> {
      const now = new Date();
      const em = orm.em.fork();
      return (await purgeDeadFamilies(em, now)) + (await purgeSpentTokens(em, now));
    },
    async purgeSentMail(): Promise<number> {
      return purgeSentMail(orm.em.fork(), new Date(Date.now() - SENT_MAIL_RETENTION_HOURS * 3_600_000));
    },
    async purgeRateLimitWindows(): Promise<number> {
      return purgeWindows(orm.em.fork(), Math.max(rateLimitWindowSeconds, LONGEST_WINDOW_SECONDS) * 2);
    },
  };
}
