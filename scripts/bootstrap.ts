/**
 * `npm run bootstrap -- --org-name NAME --merchant-name NAME [--owner-email EMAIL]`: creates an organization, a
 * merchant, their four keys, the organization's first Dashboard owner and the merchant's first merchant Dashboard
 * owner in the database `npm start` uses, and prints them as one JSON object on stdout (how the owners set a
 * password and sign in goes to stderr).
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
    },
  });
  const organizationName = values['org-name'];
  const merchantName = values['merchant-name'];
  if (!organizationName || !merchantName) {
    console.error('usage: npm run bootstrap -- --org-name NAME --merchant-name NAME [--owner-email EMAIL]');
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
  process.stdout.write(`${JSON.stringify(result)}\n`);
  process.stderr.write(ownerSignInHelp(result.organization_owner));
  process.stderr.write(merchantOwnerSignInHelp(result.merchant_owner));
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
