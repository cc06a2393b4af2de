/** Document 3's Merchant, its create receipt, merchant members and activity records, as JSON. */
import type { Merchant, MerchantActivity } from '../../../db/entities';
import { normalizeAddress } from './merchant-fields.rules';
import type { MemberView } from './members.service';

export function presentMerchant(merchant: Merchant) {
  return {
    id: merchant.id,
    organization_id: merchant.organizationId,
    name: merchant.name,
    slug: merchant.slug,
    external_reference: merchant.externalReference,
    business_registration_number: merchant.businessRegistrationNumber,
    mcc: merchant.mcc,
    phone_number: merchant.phoneNumber,
    address: merchant.address ? normalizeAddress(merchant.address) : null,
    website: merchant.website,
    status: merchant.status,
    created_at: merchant.createdAt.toISOString(),
    updated_at: merchant.updatedAt.toISOString(),
  };
}

export function presentMerchantReceipt(merchant: Merchant) {
  return {
    id: merchant.id,
    organization_id: merchant.organizationId,
    name: merchant.name,
    slug: merchant.slug,
    external_reference: merchant.externalReference,
    status: merchant.status,
    created_at: merchant.createdAt.toISOString(),
  };
}

export function presentActivity(activity: MerchantActivity) {
  return {
    id: activity.id,
    merchant_id: activity.merchantId,
    action: activity.action,
    actor: { type: activity.actorType, id: activity.actorId },
    changes: activity.changes,
    created_at: activity.createdAt.toISOString(),
  };
}

/** The invitation token hash is never read here; joined_at is null while pending, the expiry null once active. */
export function presentMember({ member, user }: MemberView) {
  return {
    membership_id: member.id,
    user_id: user.id,
    email: user.email,
    name: user.name,
    role: member.role,
    joined_at: member.joinedAt?.toISOString() ?? null,
    status: member.status,
    invitation_expires_at: member.status === 'active' ? null : (member.invitationExpiresAt?.toISOString() ?? null),
  };
}
