/**
 * `npm run bootstrap -- --org-name NAME --merchant-name NAME [--owner-email EMAIL] [--shell]`: creates an
 * organization, a merchant, their four keys, the organization's first Dashboard owner and the merchant's first
 * merchant Dashboard owner in the database `npm start` uses, and prints them as one JSON object on stdout, or with
 * --shell the guides' `KEY=… PK=… MERCHANT=…` line, ready to paste (how the owners set a password and sign in goes
 * to stderr).
 */
import { parseArgs } from 'node:util';
import { migrate } from '../db/orm';
import {
  bootstrapMerchantOwner,
  bootstrapOrganizationOwner,
  bootstrapTenant,
} from '../domain/tenants/tenants.bootstrap';
import { withLocalOrm } from './lib/local-stack';
import { merchantOwnerSignInHelp, ownerSignInHelp } from './lib/owner-help';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      'org-name': { type: 'string' },
      'merchant-name': { type: 'string' },
      'owner-email': { type: 'string' },
      shell: { type: 'boolean' },
    },
  });
  const organizationName = values['org-name'];
  const merchantName = values['merchant-name'];
  if (!organizationName || !merchantName) {
    console.error('usage: npm run bootstrap -- --org-name NAME --merchant-name NAME [--owner-email EMAIL] [--shell]');
    process.exit(2);
  }
  const ownerEmail = values['owner-email'] ?? 'owner@example.com';
  const result = await withLocalOrm(async (orm) => {
    await migrate(orm);
    const tenant = await bootstrapTenant(orm.em.fork(), { organizationName, merchantName });
    const owner = await bootstrapOrganizationOwner(orm.em.fork(), tenant.organization_id, ownerEmail);
    const merchantOwner = await bootstrapMerchantOwner(
      orm.em.fork(),
      tenant.organization_id,
      tenant.merchant_id,
      ownerEmail,
    );
    return { ...tenant, organization_owner: owner, merchant_owner: merchantOwner };
  });
  process.stdout.write(values.shell ? `${shellLine(result)}\n` : `${JSON.stringify(result)}\n`);
  // sk_live_/pk_live_ would mean real money at Stripe; here every key is the same kind.
  process.stderr.write('\nThe keys start sk_live_/pk_live_: test and live differ by connector, not by key.\n');
  process.stderr.write(ownerSignInHelp(result.organization_owner));
  process.stderr.write(merchantOwnerSignInHelp(result.merchant_owner));
}

/** The guides' setup line (docs/guides/README.md). Keys and ids are [A-Za-z0-9_], so single quotes suffice. */
function shellLine(keys: { merchant_secret_key: string; merchant_public_key: string; merchant_id: string }): string {
  return `KEY='${keys.merchant_secret_key}' PK='${keys.merchant_public_key}' MERCHANT='${keys.merchant_id}'`;
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
