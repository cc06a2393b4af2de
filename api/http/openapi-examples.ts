/**
 * Request and response examples for operations whose route declares none: built from the route's own schemas, with
 * values a reader recognises (ids with their resource's prefix, amounts in minor units, BRL, a Brazilian buyer), so
 * every operation of the reference shows a body to copy and the answer to expect. A route's hand-written `example` /
 * `responseExample` wins. test/unit/openapi-integration.test.ts validates every example against its schema.
 */
type Json = Record<string, unknown>;

/** The id prefix of each `<name>_id` field and of a resource's own `id` (by the path segment it lives under). */
const PREFIXES: Record<string, string> = {
  organization: 'org',
  merchant: 'mrc',
  customer: 'cust',
  customers: 'cust',
  test_clock: 'clk',
  'test-clocks': 'clk',
  product_family: 'pfa',
  'product-families': 'pfa',
  product: 'prd',
  products: 'prd',
  offer: 'ofr',
  offers: 'ofr',
  offer_price: 'opr',
  'offer-prices': 'opr',
  prices: 'opr',
  'offer-transitions': 'oft',
  checkout_session: 'cks',
  'checkout-sessions': 'cks',
  item: 'cki',
  items: 'cki',
  transaction: 'tx',
  transactions: 'tx',
  refund: 'ref',
  refunds: 'ref',
  order: 'ord',
  orders: 'ord',
  subscription: 'sub',
  subscriptions: 'sub',
  payment_instrument: 'pi',
  'payment-instruments': 'pi',
  token: 'tok',
  tokens: 'tok',
  connector: 'conn',
  merchant_connector: 'conn',
  default_merchant_connector: 'conn',
  connectors: 'conn',
  key: 'ak',
  'api-keys': 'ak',
  event: 'evt',
  events: 'evt',
  request: 'req',
  member: 'mbr',
  members: 'mbr',
  user: 'usr',
  profile: 'rp',
  'routing-profiles': 'rp',
  node: 'rn',
  nodes: 'rn',
  webhook: 'whc',
  webhook_config: 'whc',
  'webhook-configs': 'whc',
  delivery: 'whd',
  'webhook-deliveries': 'whd',
  session: 'bs',
  sessions: 'bs',
  merchants: 'mrc',
};

const ID_TAIL = '8Kq2mVxT3nR5';
const INSTANT = '2026-11-25T14:03:12.345Z';

/** Values by field name, where the schema alone would give a meaningless one. */
const BY_NAME: Record<string, unknown> = {
  email: 'maria.silva@example.com',
  customer_email: 'maria.silva@example.com',
  name: 'Maria Silva',
  customer_name: 'Maria Silva',
  phone: '+5511987654321',
  document_number: '12345678909',
  line_1: 'Rua Augusta, 1500',
  zip_code: '01304-001',
  city: 'São Paulo',
  state: 'SP',
  currency: 'BRL',
  selected_currency: 'BRL',
  country: 'BR',
  issuer_country: 'BR',
  amount: 4990,
  last4: '4242',
  bin: '424242',
  card_brand: 'visa',
  brand: 'visa',
  exp_month: 12,
  exp_year: 2030,
  quantity: 1,
  installments: 1,
  url: 'https://shop.example.com/webhooks/switchyard',
  description: 'Ebook: the complete guide',
  slug: 'ebook',
  provider_slug: 'provider_a',
  metadata: { order_ref: 'A-1042' },
  billing_cycle: 'monthly',
  product_name: 'Ebook',
  offer_name: 'Ebook',
  allowedCardBrands: 'visa',
};

/** A resource's `name`, by the resource (a customer's is a person's). */
const NAMES: Record<string, string> = {
  'test-clocks': 'yearly run',
  products: 'Ebook',
  offers: 'Ebook',
  'product-families': 'Books',
  connectors: 'Sandbox',
  'routing-profiles': 'Everything',
  merchants: 'Acme Store',
  merchant: 'Acme Store',
};

const firstOf = (list: unknown): unknown =>
  Array.isArray(list) ? (list as unknown[]).find((value) => value !== null) : undefined;

/** `customer_id`, `current_offer_id`, `paymentInstrumentId` → the prefix of the longest known resource name in it. */
function prefixFor(field: string, resource: string | undefined): string | undefined {
  if (field === 'id') return resource ? PREFIXES[resource] : undefined;
  const words = field
    .replace(/([a-z])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .split('_');
  if (words.pop() !== 'id') return undefined;
  for (let start = 0; start < words.length; start++) {
    const prefix = PREFIXES[words.slice(start).join('_')];
    if (prefix) return prefix;
  }
  return undefined;
}

/** Shapes a pattern-constrained field commonly has (dates, times, codes), tried when the usual value does not fit. */
const PATTERN_CANDIDATES = ['2026-11-25', '2026-11', '14:03', 'ABC123', '12345678', 'a1b2c3'];

function stringExample(schema: Json, field: string, resource: string | undefined): string {
  const value = usualString(schema, field, resource);
  if (typeof schema.pattern !== 'string') return value;
  const pattern = new RegExp(schema.pattern, 'u');
  return [value, ...PATTERN_CANDIDATES].find((candidate) => pattern.test(candidate)) ?? value;
}

function usualString(schema: Json, field: string, resource: string | undefined): string {
  const pattern = typeof schema.pattern === 'string' ? schema.pattern : undefined;
  const prefixed = pattern && /^\^([a-z]+)_/.exec(pattern);
  if (prefixed) return `${prefixed[1]}_${ID_TAIL}`;
  const prefix = prefixFor(field, resource);
  if (prefix) return `${prefix}_${ID_TAIL}`;
  if (field === 'name' && resource && NAMES[resource]) return NAMES[resource];
  if (typeof BY_NAME[field] === 'string') return BY_NAME[field];
  switch (schema.format) {
    case 'date-time':
      return INSTANT;
    case 'email':
      return 'maria.silva@example.com';
    case 'uri':
      return 'https://shop.example.com/';
    case 'iso-4217':
      return 'BRL';
    case 'iso-3166-alpha-2':
      return 'BR';
    default:
      break;
  }
  if (field.endsWith('_at')) return INSTANT;
  return field ? field.replace(/_/g, ' ') : 'text';
}

function numberExample(schema: Json, field: string): number {
  const named = BY_NAME[field];
  const value = typeof named === 'number' ? named : field.includes('amount') ? 4990 : 1;
  const minimum = typeof schema.minimum === 'number' ? schema.minimum : undefined;
  const maximum = typeof schema.maximum === 'number' ? schema.maximum : undefined;
  return Math.min(maximum ?? value, Math.max(minimum ?? value, value));
}

/**
 * An example value of `schema`. `required`: only an object's required properties (a request body shows what must
 * be sent; optional fields may exclude each other). `resource`: the path segment naming the resource, for its `id`.
 */
export function exampleOf(schema: Json, options: { required: boolean; resource?: string }, field = ''): unknown {
  if (schema.const !== undefined) return schema.const;
  if (schema.default !== undefined && field !== 'metadata') return schema.default;
  const enumValue = firstOf(schema.enum);
  if (enumValue !== undefined) return enumValue;
  const branch = (schema.anyOf ?? schema.oneOf) as Json[] | undefined;
  if (branch) {
    const chosen = branch.find((option) => option.type !== 'null') ?? branch[0];
    return exampleOf(chosen, options, field);
  }
  const type = Array.isArray(schema.type) ? firstOf(schema.type) : schema.type;
  switch (type) {
    case 'object': {
      if (field === 'metadata' && !schema.properties) return BY_NAME.metadata;
      const properties = (schema.properties ?? {}) as Record<string, Json>;
      const required = new Set((schema.required ?? []) as string[]);
      const out: Json = {};
      for (const [name, property] of Object.entries(properties)) {
        if (options.required && !required.has(name)) continue;
        // A nested resource (`merchant: {id, …}`) names its own id's prefix.
        const nested = PREFIXES[name] ? { ...options, resource: name } : options;
        out[name] = exampleOf(property, nested, name);
      }
      return out;
    }
    case 'array':
      return schema.items ? [exampleOf(schema.items as Json, options, field)] : [];
    case 'string':
      return stringExample(schema, field, options.resource);
    case 'integer':
    case 'number':
      return numberExample(schema, field);
    case 'boolean':
      return true;
    case 'null':
      return null;
    default:
      return null;
  }
}

/** The resource a path is about: its last segment naming one (`/transactions/:id/capture` → transactions). */
export function resourceOfPath(path: string): string | undefined {
  return path
    .split('/')
    .filter((segment) => PREFIXES[segment])
    .at(-1);
}
