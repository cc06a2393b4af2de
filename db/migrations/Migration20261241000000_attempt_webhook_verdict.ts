import { Migration } from '@mikro-orm/migrations';

/**
 * A charge attempt whose answer was lost and whose lookup could not tell (provider_outcome_unknown) can still be
 * decided by the provider's own payment notification (Adyen has no read at all: its AUTHORISATION notification is
 * the only record of what it did). The inbound webhook keeps that verdict on the attempt — approved or declined, and
 * the provider's payment reference — and the reconciler acts on it instead of asking the provider again; the
 * transaction itself is not moved (a charge found later is given back, docs/api-decisions.md).
 *
 * reconcile_checked_at is when a reconciler run last took the attempt up: each run takes the attempts it has not
 * seen for longest first, so attempts that stay unknown forever cannot starve newer ones that could be resolved.
 * The partial index serves exactly that query (only unresolved attempts are in it).
 */
export class Migration20261241000000_attempt_webhook_verdict extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table transaction_attempts
        add column webhook_verdict text check (webhook_verdict in ('approved', 'declined')),
        add column webhook_verdict_reference text check (char_length(webhook_verdict_reference) <= 200),
        add column reconcile_checked_at timestamptz;
      create index transaction_attempts_unresolved_rotation_idx
        on transaction_attempts (reconcile_checked_at nulls first, started_at)
        where error_code = 'provider_outcome_unknown';
    `);
  }

  override async down(): Promise<void> {
    this.addSql(`
      drop index transaction_attempts_unresolved_rotation_idx;
      alter table transaction_attempts drop column webhook_verdict, drop column webhook_verdict_reference,
        drop column reconcile_checked_at;
    `);
  }
}
