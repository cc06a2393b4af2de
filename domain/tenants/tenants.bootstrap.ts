/**
 * Creates an organization, one merchant and the four keys a newcomer needs (organization and merchant,
 * secret and public, all scopes). Used by `npm run bootstrap`, the first `npm start`, and test factories.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { MerchantSchema, OrganizationSchema, type Merchant, type Organization } from '../../db/entities';
import { issueApiKey } from '../api-keys/api-keys.service';
import { newId } from '../platform/ids';
import { uniqueSlug } from '../platform/slug';

export interface BootstrapResult {
  organization_id: string;
  merchant_id: string;
  organization_secret_key: string;
  organization_public_key: string;
  merchant_secret_key: string;
  merchant_public_key: string;
}

export async function bootstrapTenant(
  em: EntityManager,
  names: { organizationName: string; merchantName: string },
): Promise<BootstrapResult> {
  return em.transactional(async (tx) => {
    const organization = tx.create(OrganizationSchema, {
      id: newId('org'),
      name: names.organizationName,
    } as Organization);
    // Foreign keys are plain columns (no ORM relations), so parents are flushed before children.
    await tx.flush();
    const merchant = tx.create(MerchantSchema, {
      id: newId('mrc'),
      organizationId: organization.id,
      name: names.merchantName,
      slug: uniqueSlug(names.merchantName),
      status: 'active',
      networkEnrolled: false,
    } as Merchant);
    await tx.flush();
    const issue = (kind: 'secret' | 'public', merchantId?: string) =>
      issueApiKey(tx, { organizationId: organization.id, merchantId, kind }).then(({ key }) => key);
    return {
      organization_id: organization.id,
      merchant_id: merchant.id,
      organization_secret_key: await issue('secret'),
      organization_public_key: await issue('public'),
      merchant_secret_key: await issue('secret', merchant.id),
      merchant_public_key: await issue('public', merchant.id),
    };
  });
}
