/**
 * Two organizations, each with two merchants, each merchant with one of every resource the API has — made
 * through the API where it can (the catalog rows through the fixtures the API tests use) — and the credentials
 * of every kind: organization and merchant secret and public keys, organization and merchant Dashboard tokens.
 * Every secret created here goes into the registry (secrets.ts) for the leak grep.
 */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { issueApiKey } from '../../../domain/api-keys/api-keys.service';
import { addMerchant, createTenant, type Tenant } from '../../helpers/factories';
import { api } from '../../helpers/http';
import { stack } from '../../helpers/stack';
import { cascade, cardToken } from '../../helpers/transactions';
import { subscribed } from '../../helpers/subscriptions';
import { createOffer } from '../../helpers/catalog';
import { createSession } from '../../helpers/checkout';
import { CARDS, openSession } from '../../helpers/vault';
import { createMerchantUser, createOrganizationUser, signIn } from '../../helpers/dashboard';
import { registerSecret, registerSecretsIn } from './secrets';
import { webhookReceiver } from './receiver';

/** Resource ids of one merchant, keyed by the resource name used in the OpenAPI paths (see sweep targets). */
export interface MerchantWorld {
  tenant: Tenant;
  merchantToken: string;
  ids: Record<string, string>;
}

export interface OrganizationWorld {
  organizationId: string;
  organizationToken: string;
  merchants: [MerchantWorld, MerchantWorld];
}

export type World = [OrganizationWorld, OrganizationWorld];

function registerTenantKeys(tenant: Tenant, source: string): void {
  registerSecret('api_key', tenant.merchant_secret_key, `${source} merchant secret key`);
  registerSecret('api_key', tenant.merchant_public_key, `${source} merchant public key`);
  registerSecret('api_key', tenant.organization_secret_key, `${source} organization secret key`);
  registerSecret('api_key', tenant.organization_public_key, `${source} organization public key`);
}

async function secondMerchant(first: Tenant): Promise<Tenant> {
  const { merchantId, merchantKey } = await addMerchant(first);
  const { key: publicKey } = await issueApiKey(stack().orm.em.fork(), {
    organizationId: first.organization_id,
    merchantId,
    kind: 'public',
  });
  return { ...first, merchant_id: merchantId, merchant_secret_key: merchantKey, merchant_public_key: publicKey };
}

const firstIdOf = async (tenant: Tenant, path: string): Promise<string> => {
  const res = await api.get(path, { key: tenant.merchant_secret_key });
  expect(res.status, `${path}: ${res.text}`).to.equal(200);
  expect(res.body.data, `${path} is empty`).to.not.be.empty;
  return res.body.data[0].id;
};

/** One of every resource for this merchant (also the fuzzer's tenant, so its stateful runs find ids in lists). */
export async function populateMerchant(tenant: Tenant, label: string): Promise<MerchantWorld> {
  const key = tenant.merchant_secret_key;
  const connectors = await cascade(tenant, ['provider_a', 'provider_d']);
  for (const connector of connectors) {
    registerSecretsIn('connector_credential', connector.credentials, `${label} ${connector.slug} credentials`);
    registerSecret('webhook_secret', connector.webhookSecret, `${label} ${connector.slug} inbound webhook secret`);
  }
  const receiver = await webhookReceiver();
  const config = await api.post(`/merchants/${tenant.merchant_id}/webhook-configs`, {
    key,
    body: { url: receiver.url(`/${label}`), description: 'reliability' },
  });
  expect(config.status, config.text).to.equal(201);
  registerSecret('webhook_secret', config.body.secret, `${label} webhook endpoint secret`);

  // customer, saved card (payment instrument), offer (family, product, prices), a first charge, a subscription
  const sub = await subscribed(new Date(), {}, { tenant, connector: connectors[0] });
  for (const card of [CARDS.visa])
    (registerSecret('pan', card.number, `${label} card`), registerSecret('cvc', card.cvc, `${label} card`));
  // The subscription's first charge: the merchant's only transaction so far.
  const transaction = { id: await firstIdOf(tenant, '/transactions') };
  const refund = await api.post(`/transactions/${transaction.id}/refunds`, {
    key,
    headers: { 'idempotency-key': randomUUID() },
    body: { amount: 100, reason: 'requested_by_customer' },
  });
  expect(refund.status, refund.text).to.be.oneOf([200, 201]);
  const second = await createOffer(tenant.merchant_id, {
    familyId: sub.familyId,
    prices: [{ currency: 'USD', amount: 1999, isDefault: true }],
  });
  const transition = await api.post('/offer-transitions', {
    key,
    body: { from_offer_id: sub.offerId, to_offer_id: second.offer.id },
  });
  expect(transition.status, transition.text).to.equal(201);
  const session = await createSession(tenant, { offer_id: second.offer.id });
  const item = await api.post(`/checkout-sessions/${session.id}/items`, { key, body: { offer_id: sub.offerId } });
  expect(item.status, item.text).to.be.oneOf([200, 201]);
  const browser = await openSession(tenant);
  const token = await cardToken(tenant);
  const profiles = await api.get(`/merchants/${tenant.merchant_id}/routing-profiles`, { key });
  const profileId = profiles.body.data[0].id as string;
  const nodes = await api.get(`/merchants/${tenant.merchant_id}/routing-profiles/${profileId}/nodes`, { key });
  const nodeList = (nodes.body.data ?? nodes.body) as Array<{ id: string }>;
  // An API key of the merchant's own (revoke and roll name a key by its id).
  const apiKey = await api.post(`/merchants/${tenant.merchant_id}/api-keys`, {
    key: tenant.organization_secret_key,
    body: { name: `reliability ${label}`, kind: 'secret' },
  });
  expect(apiKey.status, apiKey.text).to.equal(201);
  registerSecret('api_key', apiKey.body.data?.key ?? apiKey.body.key, `${label} merchant API key`);
  // A colleague invited to the team (members are named by id) and a test clock.
  const member = await api.post(`/merchants/${tenant.merchant_id}/members`, {
    key: tenant.organization_secret_key,
    body: { email: `colleague-${label}-${Date.now()}@example.com`, role: 'viewer' },
  });
  expect(member.status, member.text).to.equal(201);
  const clock = await api.post('/test-clocks', { key, body: { frozen_time: '2027-01-31T10:00:00.000Z' } });
  expect(clock.status, clock.text).to.equal(201);
  const user = await createMerchantUser(tenant.organization_id, [tenant.merchant_id]);
  registerSecret('password', user.password, `${label} merchant user`);
  const login = await signIn('merchant', user);
  registerSecret('dashboard_token', login.access_token, `${label} merchant Dashboard access token`);
  registerSecret('dashboard_token', login.refresh_token, `${label} merchant Dashboard refresh token`);
  return {
    tenant,
    merchantToken: login.access_token,
    ids: {
      merchant: tenant.merchant_id,
      customer: sub.customerId,
      productFamily: sub.familyId,
      product: second.product.id,
      offer: second.offer.id,
      subscribedOffer: sub.offerId,
      offerPrice: second.prices[0].id,
      offerTransition: transition.body.data?.id ?? transition.body.id,
      checkoutSession: session.id,
      checkoutItem: item.body.data?.id ?? item.body.id,
      connector: connectors[0].id,
      routingProfile: profileId,
      routingNode: nodeList[0].id,
      browserSession: browser.sessionId,
      token,
      paymentInstrument: sub.instrumentId,
      webhookConfig: config.body.id,
      transaction: transaction.id,
      refund: refund.body.data?.id ?? refund.body.id,
      order: await firstIdOf(tenant, '/orders'),
      subscription: sub.state.subscriptionId,
      event: await firstIdOf(tenant, '/events'),
      apiKey: apiKey.body.data?.id ?? apiKey.body.id,
      member: member.body.membership_id,
      testClock: clock.body.data?.id ?? clock.body.id,
    },
  };
}

async function populateOrganization(label: string): Promise<OrganizationWorld> {
  const first = await createTenant();
  const second = await secondMerchant(first);
  registerTenantKeys(first, label);
  registerTenantKeys(second, `${label}/2`);
  const merchants: [MerchantWorld, MerchantWorld] = [
    await populateMerchant(first, `${label}-m1`),
    await populateMerchant(second, `${label}-m2`),
  ];
  const user = await createOrganizationUser([first.organization_id]);
  const login = await signIn('organization', user);
  registerSecret('dashboard_token', login.access_token, `${label} organization Dashboard access token`);
  registerSecret('dashboard_token', login.refresh_token, `${label} organization Dashboard refresh token`);
  return { organizationId: first.organization_id, organizationToken: login.access_token, merchants };
}

/** Path parameter → the world resource (MerchantWorld.ids) it names; `id` is named by the collection before it. */
const PARAM_RESOURCES: Record<string, string> = {
  customerId: 'customer',
  productFamilyId: 'productFamily',
  productId: 'product',
  offerId: 'offer',
  itemId: 'checkoutItem',
  merchant_id: 'merchant',
  connector_id: 'connector',
  profile_id: 'routingProfile',
  node_id: 'routingNode',
  sessionId: 'browserSession',
  tokenId: 'token',
  payment_instrument_id: 'paymentInstrument',
  webhook_id: 'webhookConfig',
  transactionId: 'transaction',
  refundId: 'refund',
  orderId: 'order',
  subscription_id: 'subscription',
  key_id: 'apiKey',
  member_id: 'member',
  test_clock_id: 'testClock',
};
const ID_COLLECTIONS: Record<string, string> = {
  offers: 'offer',
  'offer-prices': 'offerPrice',
  'offer-transitions': 'offerTransition',
  'checkout-sessions': 'checkoutSession',
  merchants: 'merchant',
  events: 'event',
  subscriptions: 'subscription',
};
export function resourceOf(path: string, param: string): string {
  if (param !== 'id') return PARAM_RESOURCES[param];
  const segments = path.split('/');
  return ID_COLLECTIONS[segments[segments.indexOf('{id}') - 1]];
}

/** Body field → the world resource it names (fields that take another resource's id). */
const FIELD_RESOURCES: Record<string, string> = {
  card_ciphertext_id: 'token',
  tokenId: 'token',
  checkoutSessionId: 'checkoutSession',
  checkout_session_id: 'checkoutSession',
  connectorId: 'connector',
  merchant_connector_id: 'connector',
  default_merchant_connector_id: 'connector',
  customerId: 'customer',
  customer_id: 'customer',
  event_id: 'event',
  offer_id: 'offer',
  from_offer_id: 'offer',
  to_offer_id: 'subscribedOffer',
  renewal_offer_id: 'offer',
  payment_instrument_id: 'paymentInstrument',
  product_family_id: 'productFamily',
  product_id: 'product',
  parent_node_id: 'routingNode',
};

/** Fills body fields that name a resource with this merchant's own ids (see openapi.ts minimalValue). */
export const ownIds =
  (merchant: MerchantWorld) =>
  (field: string): string | undefined =>
    FIELD_RESOURCES[field] ? merchant.ids[FIELD_RESOURCES[field]] : undefined;

let built: Promise<World> | undefined;

/** Built once per mocha run and shared by the parts that need it (the sweep, mass assignment, the leak grep). */
export function world(): Promise<World> {
  built ??= (async () => [await populateOrganization('org-a'), await populateOrganization('org-b')] as World)();
  return built;
}
