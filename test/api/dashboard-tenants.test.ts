/**
 * Tenant headers of Dashboard routes (resolveDashboardTenant, used by the route runner): merchant Dashboard
 * endpoints need x-merchant-id and an active membership, organization ones x-organization-id naming the token's
 * organization and an active membership; 403 otherwise, 400 without the header.
 */
import { expect } from 'chai';
import { resolveDashboardTenant, type DashboardSession } from '../../api/http/dashboard-auth';
import { ApiError } from '../../domain/platform/errors';
import { addMerchant, createTenant } from '../helpers/factories';
import { stack } from '../helpers/stack';
import { rows } from '../helpers/db';
import { createMerchantUser, createOrganizationUser } from '../helpers/dashboard';

async function statusOf(promise: Promise<unknown>): Promise<number | string> {
  try {
    return (await promise) as string;
  } catch (error) {
    if (error instanceof ApiError) return error.status;
    throw error;
  }
}

describe('Dashboard tenant headers', () => {
  const em = () => stack().orm.em.fork();
  const headers = (values: Record<string, string>) => (name: string) => values[name];

  it('x-merchant-id: an active member passes; pending, another merchant or another tenant is 403; absent is 400', async () => {
    const [tenant, foreign] = [await createTenant(), await createTenant()];
    const sibling = await addMerchant(tenant);
    const user = await createMerchantUser(tenant.organization_id, [tenant.merchant_id]);
    const session: DashboardSession = {
      identity: 'merchant',
      userId: user.id,
      sessionId: 'rtf_x',
      organizationId: null,
    };
    const resolve = (merchantId?: string) =>
      statusOf(
        resolveDashboardTenant(em(), session, 'merchant', headers(merchantId ? { 'x-merchant-id': merchantId } : {})),
      );
    expect(await resolve(tenant.merchant_id)).to.equal(tenant.merchant_id);
    expect(await resolve(sibling.merchantId)).to.equal(403);
    expect(await resolve(foreign.merchant_id)).to.equal(403);
    expect(await resolve()).to.equal(400);
    await rows("update merchant_members set status = 'pending' where user_id = ?", [user.id]);
    expect(await resolve(tenant.merchant_id)).to.equal(403);
    const orgSession = { ...session, identity: 'organization' as const };
    expect(
      await statusOf(
        resolveDashboardTenant(em(), orgSession, 'merchant', headers({ 'x-merchant-id': tenant.merchant_id })),
      ),
    ).to.equal(403);
  });

  it("x-organization-id: must be the token's organization and an active membership", async () => {
    const [first, second] = [await createTenant(), await createTenant()];
    const user = await createOrganizationUser([first.organization_id, second.organization_id]);
    const session: DashboardSession = {
      identity: 'organization',
      userId: user.id,
      sessionId: 'rtf_x',
      organizationId: first.organization_id,
    };
    const resolve = (organizationId: string) =>
      statusOf(resolveDashboardTenant(em(), session, 'organization', headers({ 'x-organization-id': organizationId })));
    expect(await resolve(first.organization_id)).to.equal(first.organization_id);
    // A member of `second`, but the token was minted against `first`: switch first.
    expect(await resolve(second.organization_id)).to.equal(403);
    await rows('delete from organization_members where user_id = ? and organization_id = ?', [
      user.id,
      first.organization_id,
    ]);
    expect(await resolve(first.organization_id)).to.equal(403);
  });

  it('a viewer reads but cannot change: write access on either Dashboard is 403 for the viewer role', async () => {
    const tenant = await createTenant();
    const viewer = await createMerchantUser(tenant.organization_id, [tenant.merchant_id], { role: 'viewer' });
    const admin = await createMerchantUser(tenant.organization_id, [tenant.merchant_id], { role: 'admin' });
    const merchantSession = (userId: string): DashboardSession => ({
      identity: 'merchant',
      userId,
      sessionId: 'rtf_x',
      organizationId: null,
    });
    const onMerchant = (userId: string, access: 'read' | 'write') =>
      statusOf(
        resolveDashboardTenant(
          em(),
          merchantSession(userId),
          'merchant',
          headers({ 'x-merchant-id': tenant.merchant_id }),
          access,
        ),
      );
    expect(await onMerchant(viewer.id, 'read')).to.equal(tenant.merchant_id);
    expect(await onMerchant(viewer.id, 'write')).to.equal(403);
    expect(await onMerchant(admin.id, 'write')).to.equal(tenant.merchant_id);

    const orgViewer = await createOrganizationUser([tenant.organization_id], { role: 'viewer' });
    const orgSession: DashboardSession = {
      identity: 'organization',
      userId: orgViewer.id,
      sessionId: 'rtf_x',
      organizationId: tenant.organization_id,
    };
    const onOrganization = (access: 'read' | 'write') =>
      statusOf(
        resolveDashboardTenant(
          em(),
          orgSession,
          'organization',
          headers({ 'x-organization-id': tenant.organization_id }),
          access,
        ),
      );
    expect(await onOrganization('read')).to.equal(tenant.organization_id);
    expect(await onOrganization('write')).to.equal(403);
  });
});
