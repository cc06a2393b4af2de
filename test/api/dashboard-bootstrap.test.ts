/** The bootstrap command's first organization owner: a one-time password-set link, then organization sign-in. */
import { expect } from 'chai';
import { bootstrapOrganizationOwner } from '../../domain/tenants/tenants.bootstrap';
import { api } from '../helpers/http';
import { createTenant, uniqueEmail } from '../helpers/factories';
import { expectError } from '../helpers/envelope';
import { stack } from '../helpers/stack';
import { NEW_PASSWORD, signIn } from '../helpers/dashboard';

describe('Bootstrap: the first organization owner', () => {
  it('has no password until the one-time token sets it; then signs in as owner; the token works once', async () => {
    const tenant = await createTenant();
    const email = uniqueEmail('founder');
    const owner = await bootstrapOrganizationOwner(stack().orm.em.fork(), tenant.organization_id, email);
    expect(owner.email).to.equal(email);
    expectError(await api.post('/auth/organization/login', { body: { email, password: NEW_PASSWORD } }), 401);
    const set = await api.post('/auth/reset-password', {
      body: { token: owner.password_setup_token, new_password: NEW_PASSWORD },
    });
    expect(set.status, set.text).to.equal(200);
    const session = await signIn('organization', { email, password: NEW_PASSWORD });
    expect(session.organization_id).to.equal(tenant.organization_id);
    expect(session.memberships[0]).to.include({ organization_id: tenant.organization_id, role: 'owner' });
    const again = await api.post('/auth/reset-password', {
      body: { token: owner.password_setup_token, new_password: 'Another-Pass-99' },
    });
    expectError(again, 401);
  });
});
