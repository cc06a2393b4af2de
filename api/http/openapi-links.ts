/**
 * OpenAPI links of the document: which response feeds which operation's parameters. Schemathesis's stateful phase
 * chains calls along them (create a customer, then read, update and delete that customer) instead of guessing ids
 * that mostly meet 404. Most links follow from the paths alone and are derived here; routes declare the others
 * (`links` in defineRoute) where the names differ or a field of a body takes the id.
 */
import type { TSchema } from '@sinclair/typebox';
import type { AnyRoute, RouteLink } from './define-route';

type Json = Record<string, unknown>;

const pathParams = (path: string) => [...path.matchAll(/:([A-Za-z_]+)/g)].map((match) => match[1]);
const is2xx = (status: number) => status >= 200 && status < 300;
const plain = (schema: TSchema): Json => JSON.parse(JSON.stringify(schema)) as Json;
const routeKey = (route: AnyRoute) => `${route.method} ${route.path}`;

const bodies = new WeakMap<AnyRoute, Array<[number, Json]>>();

/** The success statuses that return a body, with that body's (plain) schema; computed once per route. */
function successBodies(route: AnyRoute): Array<[number, Json]> {
  let found = bodies.get(route);
  if (!found) {
    found = Object.entries(route.responses)
      .filter(([status, schema]) => is2xx(Number(status)) && schema)
      .map(([status, schema]) => [Number(status), plain(schema as TSchema)]);
    bodies.set(route, found);
  }
  return found;
}

const isList = (schema: Json) => schema.type === 'array';
const resourceOf = (schema: Json) => (isList(schema) ? ((schema.items ?? {}) as Json) : schema);
const hasId = (schema: Json) => Boolean((resourceOf(schema).properties as Json | undefined)?.id);

/**
 * A resource (or a list of them, whose first item is taken) yields the id of the routes one level below its own
 * path: POST /customers → /customers/:customerId; POST /offers → /offers/:offerId/prices; GET /merchants →
 * /merchants/:merchant_id/connectors. The target's other path parameters must be this request's own.
 */
function derivedLinks(producer: AnyRoute, routes: readonly AnyRoute[]): RouteLink[] {
  if (!successBodies(producer).some(([, schema]) => hasId(schema))) return [];
  const own = new Set(pathParams(producer.path));
  const links: RouteLink[] = [];
  const prefix = `${producer.path}/:`;
  for (const target of routes) {
    if (!target.path.startsWith(prefix)) continue;
    const idParam = /^[A-Za-z_]+/.exec(target.path.slice(prefix.length))?.[0];
    if (!idParam) continue;
    const others = pathParams(target.path).filter((name) => name !== idParam);
    if (!others.every((name) => own.has(name))) continue;
    const from: Record<string, string> = { [idParam]: 'id' };
    for (const name of others) from[name] = `:${name}`;
    links.push({ to: `${target.method} ${target.path}` as RouteLink['to'], from });
  }
  return links;
}

/** `$response.body#…` for a field of the returned resource, `$request.path.…` for `:name`. */
function expression(producer: AnyRoute, schema: Json, source: string): string {
  if (source.startsWith(':')) return `$request.path.${source.slice(1)}`;
  const enveloped = producer.envelope === 'wrapped' || Boolean(producer.pagination);
  return `$response.body#${enveloped ? '/data' : ''}${isList(schema) ? '/0' : ''}/${source}`;
}

/**
 * The `links` object of each success status of `producer` (OpenAPI 3.1 Link Objects by target operationId; body
 * fields as a `requestBody` object, which Schemathesis merges into the body it generates).
 */
export function linksOf(
  producer: AnyRoute,
  routes: readonly AnyRoute[],
  operationIdOf: (route: AnyRoute) => string,
): Map<number, Json> {
  const byKey = new Map(routes.map((route) => [routeKey(route), route]));
  // A declared link replaces a derived one to the same target.
  const declared = producer.links ?? [];
  const all = [
    ...derivedLinks(producer, routes).filter((link) => !declared.some((other) => other.to === link.to)),
    ...declared,
  ];
  const out = new Map<number, Json>();
  for (const [status, schema] of successBodies(producer)) {
    const links: Json = {};
    for (const link of all) {
      if (link.status !== undefined && link.status !== status) continue;
      const target = byKey.get(link.to);
      // A declared link to a route that does not exist fails the OpenAPI unit test, which names it.
      const operationId = target ? operationIdOf(target) : `missing route: ${link.to}`;
      const parameters: Json = {};
      const requestBody: Json = {};
      for (const [name, source] of Object.entries(link.from)) {
        if (name.startsWith('body.')) requestBody[name.slice('body.'.length)] = expression(producer, schema, source);
        else parameters[name] = expression(producer, schema, source);
      }
      links[operationId] = {
        operationId,
        ...(Object.keys(parameters).length ? { parameters } : {}),
        ...(Object.keys(requestBody).length ? { requestBody } : {}),
      };
    }
    if (Object.keys(links).length) out.set(status, links);
  }
  return out;
}
