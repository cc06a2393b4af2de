/** How the bootstrapped organization owner sets a password and signs in (printed by bootstrap and npm start). */
import type { BootstrapMerchantOwner, BootstrapOwner } from '../../domain/tenants/tenants.bootstrap';

export function ownerSignInHelp(owner: BootstrapOwner, apiUrl = 'http://localhost:3000/api/v1'): string {
  return `
The organization owner ${owner.email} has no password yet. Set one with the one-time token (valid until
${owner.password_setup_expires_at}), then sign in to the organization Dashboard API:
  curl -X POST ${apiUrl}/auth/reset-password -H 'content-type: application/json' \\
    -d '{"token":"${owner.password_setup_token}","new_password":"<12+ chars, upper, lower, digit>"}'
  curl -X POST ${apiUrl}/auth/organization/login -H 'content-type: application/json' \\
    -d '{"email":"${owner.email}","password":"<that password>"}'
`;
}

/** How the bootstrapped merchant owner opens the merchant Dashboard web app, sets a password and signs in. */
export function merchantOwnerSignInHelp(
  owner: BootstrapMerchantOwner,
  dashboardUrl = 'http://localhost:3000/dashboard',
): string {
  return `
The merchant Dashboard owner ${owner.email} has no password yet. Open this one-time link (valid until
${owner.password_setup_expires_at}), choose a password, then sign in at ${dashboardUrl}/ :
  ${dashboardUrl}/reset-password?dashboard=merchant&token=${owner.password_setup_token}
`;
}
