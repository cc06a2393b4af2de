/** Every scope the API checks (resource:action). Bootstrap keys get all of them. */
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
