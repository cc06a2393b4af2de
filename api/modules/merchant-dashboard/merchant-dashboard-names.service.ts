/**
 * Names instead of ids on the merchant Dashboard's payment pages, and search by the customer's e-mail.
 * A Dashboard route served from an API-key route (merchant-dashboard.routes.ts) is wrapped: a customer_email filter
 * becomes the customer's id before the API handler runs, and what that handler answers gains customer_name and
 * customer_email (connector_name on attempts), read in one query per page. The API-key routes stay as they are.
 */
import { Type, type TObject, type TSchema } from '@sinclair/typebox';
import type { EntityManager } from '@mikro-orm/postgresql';
import { CustomerSchema, MerchantConnectorSchema } from '../../../db/entities';
import type { AnyRoute, HandlerResult } from '../../http/define-route';
import { Nullable } from '../../http/schema';
import { pagination, type PageRequest } from '../../http/pagination';
import { errors } from '../../../domain/platform/errors';

type Row = Record<string, unknown>;

const CustomerEmailQuery = Type.String({
  minLength: 1,
  maxLength: 254,
  description: "The customer's e-mail, exact and case-insensitive (an unknown e-mail matches nothing)",
});

const CUSTOMER_NAMES = {
  customer_name: Nullable(Type.String({ description: "The customer's name (null: no customer or deleted)" })),
  customer_email: Nullable(Type.String({ description: "The customer's e-mail (null: no customer or deleted)" })),
};
const CONNECTOR_NAMES = {
  connector_name: Nullable(Type.String({ description: "The connector's name (null: deleted)" })),
};

/** The customer of this merchant with this e-mail (stored lower-case), or null. */
export async function customerIdByEmail(em: EntityManager, merchantId: string, email: string): Promise<string | null> {
  const customer = await em.findOne(
    CustomerSchema,
    { merchantId, email: email.trim().toLowerCase() },
    { fields: ['id'] },
  );
  return customer?.id ?? null;
}

/** `schema` (an object, or an array of objects) with `extra` properties, required like the others. */
function extended(schema: TSchema, extra: Record<string, TSchema>): TSchema {
  if (schema.type === 'array') return { ...schema, items: extended(schema.items as TSchema, extra) };
  const object = schema as TObject;
  return {
    ...object,
    properties: { ...object.properties, ...extra },
    required: [...(object.required ?? []), ...Object.keys(extra)],
  };
}

const rowsOf = (data: unknown): Row[] => (Array.isArray(data) ? (data as Row[]) : data ? [data as Row] : []);
const idsAt = (rows: Row[], field: string) => [
  ...new Set(rows.map((row) => row[field]).filter((id): id is string => typeof id === 'string')),
];

async function addCustomerNames(em: EntityManager, merchantId: string, rows: Row[]): Promise<void> {
  const ids = idsAt(rows, 'customer_id');
  const customers = ids.length
    ? await em.find(CustomerSchema, { id: { $in: ids }, merchantId }, { fields: ['id', 'name', 'email'] })
    : [];
  const byId = new Map(customers.map((customer) => [customer.id, customer]));
  for (const row of rows) {
    const customer = byId.get(row.customer_id as string);
    row.customer_name = customer?.name ?? null;
    row.customer_email = customer?.email ?? null;
  }
}

async function addConnectorNames(em: EntityManager, merchantId: string, rows: Row[]): Promise<void> {
  const ids = idsAt(rows, 'connector_id');
  const connectors = ids.length
    ? await em.find(MerchantConnectorSchema, { id: { $in: ids }, merchantId }, { fields: ['id', 'name'] })
    : [];
  const byId = new Map(connectors.map((connector) => [connector.id, connector.name]));
  for (const row of rows) row.connector_name = byId.get(row.connector_id as string) ?? null;
}

interface Naming {
  /** Add customer_name and customer_email next to customer_id. */
  customers?: boolean;
  /** Add connector_name next to connector_id. */
  connectors?: boolean;
  /** Take a customer_email filter and hand the API handler this query field set to the customer's id. */
  emailFilter?: string;
}

/** `route` answering names next to its ids (and, for lists, filtering by the customer's e-mail). */
export function withNames(route: AnyRoute, naming: Naming): AnyRoute {
  const extra = { ...(naming.customers ? CUSTOMER_NAMES : {}), ...(naming.connectors ? CONNECTOR_NAMES : {}) };
  const query = route.query as TObject | undefined;
  const filter = naming.emailFilter;
  return {
    ...route,
    query:
      filter && query
        ? { ...query, properties: { ...query.properties, customer_email: Type.Optional(CustomerEmailQuery) } }
        : query,
    responses: Object.fromEntries(
      Object.entries(route.responses).map(([status, schema]) => [status, schema && extended(schema, extra)]),
    ),
    async handler(input) {
      const { em, merchantId } = input;
      const asked = (input.query as Row | undefined)?.customer_email as string | undefined;
      let handled: HandlerResult;
      if (filter && asked !== undefined) {
        const { customer_email: _email, ...rest } = input.query as Row;
        if (rest[filter] !== undefined)
          throw errors.invalidValue('customer_email', `send customer_email or ${filter}, not both`);
        const customerId = await customerIdByEmail(em, merchantId, asked);
        // No such customer: an empty page, not every payment.
        if (!customerId) return { status: 200, data: [], pagination: pagination(rest as unknown as PageRequest, 0) };
        // The input's other fields are getters (merchantId, session): inherit them, replace only the query.
        const narrowed = Object.assign(Object.create(input) as typeof input, {
          query: { ...rest, [filter]: customerId },
        });
        handled = await route.handler(narrowed);
      } else handled = await route.handler(input);
      const rows = rowsOf(handled.data);
      if (naming.customers) await addCustomerNames(em, merchantId, rows);
      if (naming.connectors) await addConnectorNames(em, merchantId, rows);
      return handled;
    },
  };
}
