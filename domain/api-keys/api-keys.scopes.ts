/** What an API key may do: every scope the API checks (resource:action; bootstrap keys get all of them), and its level. */
export const SCOPES = [
  'checkout:read',
  'checkout:write',
  'customers:read',
  'customers:write',
  'products:read',
  'products:write',
  'offers:read',
  'offers:write',
  'transactions:read',
  'transactions:write',
  'orders:read',
  'instruments:read',
  'instruments:write',
  'subscriptions:read',
  'subscriptions:write',
  'merchants:read',
  'merchants:write',
  'connectors:read',
  'connectors:write',
  'routing:read',
  'routing:write',
  'webhooks:read',
  'webhooks:write',
] as const;

export type Scope = (typeof SCOPES)[number];

/** What a key acts on: its one merchant, or any merchant of its organization (named in each request). */
export type KeyLevel = 'organization' | 'merchant';
