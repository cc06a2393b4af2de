import { defineRoute } from '../../http/define-route';
import { CreateEnrolmentTokenBody, EnrolmentTokenParams, EnrolmentTokenSchema } from './enrolment-tokens.schema';
import { mintEnrolmentToken } from './enrolment-tokens.service';

export const enrolmentTokenRoutes = [
  defineRoute({
    method: 'post',
    path: '/merchants/:merchant_id/enrolment-tokens',
    summary:
      "Mint a short-lived, single-use token that lets the buyer's browser save a card for this customer " +
      '(POST /sessions/:sessionId/payment-instruments with enrolmentToken, in a session without a checkout)',
    tags: ['Browser sessions and tokens'],
    auth: { keys: ['merchant', 'organization'], scopes: ['instruments:write'] },
    params: EnrolmentTokenParams,
    body: CreateEnrolmentTokenBody,
    responses: { 201: EnrolmentTokenSchema },
    envelope: 'bare',
    async handler({ em, merchantId, body }) {
      const minted = await mintEnrolmentToken(em, merchantId, body, new Date());
      return {
        status: 201,
        data: {
          enrolment_token: minted.token,
          merchant_id: minted.merchantId,
          customer_id: minted.customerId,
          expires_at: minted.expiresAt.toISOString(),
        },
      };
    },
  }),
];
