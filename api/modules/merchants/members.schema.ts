/** Team management bodies and params (docs/api-decisions.md, "Merchant team"); members are MemberSchema. */
import { Type } from '@sinclair/typebox';
import { MEMBER_ROLES } from '../../../db/entities';
import { Id, SingleLineName, StrictObject, StringEnum } from '../../http/schema';

const Role = StringEnum(MEMBER_ROLES, {
  description: 'owner: everything, including the team and its owners; admin: everything but owners; viewer: reads only',
});

export const InviteMemberBody = StrictObject({
  email: Type.String({ format: 'email', maxLength: 254, description: 'Where the invitation link is sent' }),
  name: Type.Optional(SingleLineName()),
  role: Role,
});
export const ChangeMemberBody = StrictObject({ role: Role });

export const MemberParams = StrictObject({ merchant_id: Id('mrc'), member_id: Id('mbr') });
export const DashboardMemberParams = StrictObject({ member_id: Id('mbr') });

export const RemoveMemberQuery = StrictObject({
  revoke_keys: Type.Boolean({
    default: false,
    description:
      'true: also revoke, at once, the API keys this member minted that still work (the activity record lists them either way)',
  }),
});
