/**
 * `npm run bootstrap -- --org-name NAME --merchant-name NAME`: creates an organization, a merchant and
 * their four keys in the database `npm start` uses, and prints them as one JSON object on stdout.
 */
import { parseArgs } from 'node:util';
import { migrate } from '../db/orm';
import { bootstrapTenant } from '../domain/tenants/tenants.bootstrap';
import { withLocalOrm } from './lib/local-stack';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { 'org-name': { type: 'string' }, 'merchant-name': { type: 'string' } },
  });
  const organizationName = values['org-name'];
  const merchantName = values['merchant-name'];
  if (!organizationName || !merchantName) {
    console.error('usage: npm run bootstrap -- --org-name NAME --merchant-name NAME');
    process.exit(2);
  }
  const result = await withLocalOrm(async (orm) => {
    await migrate(orm);
    return bootstrapTenant(orm.em.fork(), { organizationName, merchantName });
  });
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
