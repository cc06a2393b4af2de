/**
 * The organization's settings: today the switch that allows test-mode connectors in production. Only an owner
 * changes it (it decides whether sandbox connectors, which approve without collecting money, may sit beside live
 * ones); each change is written to the activity log of every merchant of the organization, in the same transaction,
 * since it is their connectors it governs.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Static } from '@sinclair/typebox';
import { MerchantSchema, OrganizationMemberSchema, OrganizationSchema, type Organization } from '../../../db/entities';
import { errors } from '../../../domain/platform/errors';
import { diff, recordActivity, type Actor } from '../../../domain/merchants/merchants.activity';
import type { UpdateOrganizationSettingsBody } from './organization-settings.schema';

export const presentSettings = (organization: Organization) => ({
  test_connectors_enabled: organization.testConnectorsEnabled,
});

export const readSettings = (em: EntityManager, organizationId: string) =>
  em.findOneOrFail(OrganizationSchema, { id: organizationId });

export async function updateSettings(
  em: EntityManager,
  organizationId: string,
  userId: string,
  input: Static<typeof UpdateOrganizationSettingsBody>,
) {
  const member = await em.findOne(OrganizationMemberSchema, { organizationId, userId, status: 'active' });
  if (member?.role !== 'owner')
    throw errors.forbidden("Only an organization owner can change the organization's settings");
  const organization = await readSettings(em, organizationId);
  const before = presentSettings(organization);
  if (input.test_connectors_enabled !== undefined) organization.testConnectorsEnabled = input.test_connectors_enabled;
  const changes = diff(before, presentSettings(organization));
  if (Object.keys(changes).length > 0) {
    const actor: Actor = { type: 'dashboard_user', id: userId };
    for (const merchant of await em.find(MerchantSchema, { organizationId }, { fields: ['id'] }))
      recordActivity(em, {
        organizationId,
        merchantId: merchant.id,
        action: 'organization.settings_updated',
        actor,
        changes,
      });
  }
  await em.flush();
  return organization;
}
