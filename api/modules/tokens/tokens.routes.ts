import { defineRoute } from '../../http/define-route';
import { sessionFromHeader } from '../browser-sessions/browser-sessions.service';
import { CreateTokenBody, GetTokenQuery, TokenParams, TokenSchema } from './tokens.schema';
import { presentToken } from './tokens.presenter';
import { getToken, mintToken } from './tokens.service';

const tags = ['Browser sessions and tokens'];

export const tokenRoutes = [
  defineRoute({
    method: 'post',
    path: '/tokens',
    summary: 'Tokenize browser-encrypted card data (X-Public-Key and X-Session-Id); single use, 15 minutes',
    tags,
    auth: { keys: ['merchant', 'organization'], scopes: [], merchantScoped: false, publicKey: true },
    body: CreateTokenBody,
    responses: { 201: TokenSchema },
    envelope: 'bare',
    // 422 business_rule_error: an expired browser session, a card brand the merchant does not accept.
    errors: [422],
    links: [
      // A token's id is `tokenId`; bodies take it as card_ciphertext_id.
      { to: 'get /tokens/:tokenId', from: { tokenId: 'tokenId' } },
      { to: 'post /transactions', from: { 'body.card_ciphertext_id': 'tokenId' } },
      {
        to: 'post /merchants/:merchant_id/payment-instruments',
        from: { merchant_id: 'merchant_id', 'body.card_ciphertext_id': 'tokenId' },
      },
    ],
    async handler({ em, auth, body, deps, header }) {
      const now = new Date();
      const session = await sessionFromHeader(em, auth, header('x-session-id'), now);
      const token = await mintToken(em, deps.config, session, body, now);
      return { status: 201, data: presentToken(token, now) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/tokens/:tokenId',
    summary: 'Get a card token (non-sensitive parts only)',
    tags,
    auth: { keys: ['merchant', 'organization'], scopes: ['instruments:read'] },
    params: TokenParams,
    query: GetTokenQuery,
    responses: { 200: TokenSchema },
    envelope: 'bare',
    async handler({ em, merchantId, params }) {
      return { status: 200, data: presentToken(await getToken(em, merchantId, params.tokenId), new Date()) };
    },
  }),
];
