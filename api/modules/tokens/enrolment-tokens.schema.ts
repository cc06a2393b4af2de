import { Type } from '@sinclair/typebox';
import { Id, StrictObject, Timestamp } from '../../http/schema';

export const ENROLMENT_TOKEN_DEFAULT_MINUTES = 15;
export const ENROLMENT_TOKEN_MAX_MINUTES = 60;

export const EnrolmentTokenParams = StrictObject({ merchant_id: Id('mrc') });

export const CreateEnrolmentTokenBody = StrictObject({
  customer_id: Id('cust'),
  expires_in_minutes: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: ENROLMENT_TOKEN_MAX_MINUTES,
      description: `How long the token can be used (default ${ENROLMENT_TOKEN_DEFAULT_MINUTES})`,
    }),
  ),
});

export const EnrolmentTokenSchema = StrictObject({
  enrolment_token: Type.String({ description: 'Shown only here; single use; pass it as enrolmentToken' }),
  merchant_id: Type.String(),
  customer_id: Type.String(),
  expires_at: Timestamp,
});
