/**
 * Turns a RouteDefinition into Koa middleware: authenticate (a key that matches nothing spends its address's budget,
 * past which it gets 429, refusal-budgets.ts; a Dashboard token's session must be live, dashboard-sessions.ts) → rate
 * limit (public keys: per IP and per browser session first, browser-limits.ts) → authorize → validate → resolve the
 * merchant (a suspended or inactive one refuses writes and public keys, auth.ts) → (idempotency) →
 * handler → envelope. Validators are compiled once, at mount.
 */
import type { Context } from 'koa';
import { createHash } from 'node:crypto';
import { Type, type TSchema, type TObject } from '@sinclair/typebox';
import type { ValidateFunction } from 'ajv';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { AppDeps } from '../deps';
import {
  authenticateApiKey,
  authenticatePublicKey,
  authorize,
  resolveMerchant,
  requireActiveMerchant,
  UnknownApiKeyError,
  type ApiKeyAuth,
} from './auth';
import { addressBucket } from './client-address';
import { keyGuessesOf } from './refusal-budgets';
import { isDashboardAuth, type AnyRoute, type HandlerResult, type RouteTable } from './define-route';
import { authenticateDashboard, resolveDashboardTenant, type DashboardSession } from './dashboard-auth';
import { wrapped } from './request-context';
import { errors } from '../../domain/platform/errors';
import {
  idempotencyLeaseSeconds,
  MAX_IDEMPOTENCY_KEY_LENGTH,
  requestFingerprint,
  runIdempotent,
  type StoredResponse,
} from './idempotency';
import { decryptSecret, encryptSecret } from '../../domain/platform/crypto';
import { consumeRateLimit, rateLimitHeaders, tightest } from './rate-limit';
import { consumeBrowserLimits } from './browser-limits';
import { requireLiveSession } from './dashboard-sessions';
import { bodyAjv, textAjv, toFieldErrors, unstorableTextFields } from './schema';
import { malformedIdError } from './malformed-id';
import { annotateActiveSpan } from '../../domain/platform/tracing';

const NO_QUERY = Type.Object({}, { additionalProperties: false });

interface CompiledRoute {
  params?: ValidateFunction;
  query?: ValidateFunction;
  body?: ValidateFunction;
  commaSeparated: string[];
  responses: Map<number, ValidateFunction | null>;
}

/** Idempotent creates also accept the key as a body field; it is part of the documented body. */
export function bodySchemaOf(route: AnyRoute): TSchema | undefined {
  if (!route.body || !route.idempotency) return route.body as TSchema | undefined;
  const body = route.body as TObject;
  return {
    ...body,
    properties: {
      ...body.properties,
      idempotency_key: Type.Optional(Type.String({ minLength: 1, maxLength: MAX_IDEMPOTENCY_KEY_LENGTH })),
    },
  };
}

function compileRoute(route: AnyRoute, deps: AppDeps): CompiledRoute {
  const querySchema = route.query as TObject | undefined;
  const bodySchema = bodySchemaOf(route);
  return {
    params: route.params ? textAjv.compile(route.params as TSchema) : undefined,
    // A route without query parameters still refuses unknown ones (typos never pass silently).
    query: textAjv.compile(querySchema ?? NO_QUERY),
    body: bodySchema && bodyAjv.compile(bodySchema),
    commaSeparated: Object.entries(querySchema?.properties ?? {})
      .filter(([, schema]) => (schema as Record<string, unknown>)['x-comma-separated'])
      .map(([name]) => name),
    responses: new Map(
      Object.entries(route.responses).map(([status, schema]) => [
        Number(status),
        schema && deps.config.validateResponses ? bodyAjv.compile(schema) : null,
      ]),
    ),
  };
}

/** Repeated (?status=a&status=b) and comma-separated (?status=a,b) values both become one array. */
function normalizeQuery(query: Context['query'], commaSeparated: string[]): Record<string, unknown> {
  const normalized: Record<string, unknown> = { ...query };
  for (const name of commaSeparated) {
    const raw = normalized[name];
    if (raw === undefined) continue;
    normalized[name] = ([] as string[])
      .concat(raw as string | string[])
      .flatMap((value) => value.split(','))
      .filter(Boolean);
  }
  return normalized;
}

function hasRequestBody(ctx: Context): boolean {
  return Number(ctx.get('content-length') || 0) > 0 || ctx.get('transfer-encoding') !== '';
}

function validate(validator: ValidateFunction | undefined, value: unknown, root: string): unknown {
  if (!validator) return {};
  if (!validator(value)) throw errors.validation(toFieldErrors(validator.errors, root));
  const unstorable = unstorableTextFields(value, root);
  if (Object.keys(unstorable).length > 0) throw errors.validation(unstorable);
  return value;
}

const idempotencyKeyRequired = () =>
  errors.validation(
    { 'Idempotency-Key': ['is required'] },
    'An Idempotency-Key header is required',
    'IDEMPOTENCY_KEY_REQUIRED',
  );

/** Whether the request carries an idempotency key at all (header, or the body field of a JSON object body). */
function idempotencyKeySent(ctx: Context): boolean {
  if (ctx.get('idempotency-key')) return true;
  const raw = (ctx.request as { body?: unknown }).body;
  return typeof raw === 'object' && raw !== null && !Array.isArray(raw) && 'idempotency_key' in raw;
}

function readBody(ctx: Context, route: AnyRoute, compiled: CompiledRoute): Record<string, unknown> {
  const raw = (ctx.request as { body?: unknown }).body;
  if (hasRequestBody(ctx) && !ctx.is('application/json')) {
    throw errors.badRequest('UNSUPPORTED_MEDIA_TYPE', 'Send the request body as application/json', 415);
  }
  const body = raw === undefined || raw === null || (typeof raw === 'string' && raw === '') ? {} : raw;
  if (!route.body) {
    if (typeof body === 'object' && Object.keys(body).length === 0) return {};
    throw errors.validation({ body: ['this endpoint takes no request body'] });
  }
  if (typeof body !== 'object' || Array.isArray(body)) throw errors.validation({ body: ['must be a JSON object'] });
  return validate(compiled.body, body, 'body') as Record<string, unknown>;
}

function present(route: AnyRoute, result: HandlerResult, requestId: string): unknown {
  if (result.status === 204) return undefined;
  if (route.envelope === 'wrapped') {
    return wrapped(result.data, requestId, result.pagination ? { pagination: result.pagination } : undefined);
  }
  if (!result.pagination) return result.data;
  return {
    data: result.data,
    meta: route.pagination === 'flat' ? result.pagination : { pagination: result.pagination },
  };
}

function checkResponse(compiled: CompiledRoute, route: AnyRoute, result: HandlerResult): void {
  if (!compiled.responses.has(result.status)) {
    throw new Error(`${route.method.toUpperCase()} ${route.path} returned undeclared status ${result.status}`);
  }
  const validator = compiled.responses.get(result.status);
  if (validator && !validator(result.data)) {
    throw new Error(
      `${route.method.toUpperCase()} ${route.path} response does not match its schema: ${JSON.stringify(validator.errors)}`,
    );
  }
}

export function mountRoute(table: RouteTable, prefix: string, route: AnyRoute, deps: AppDeps): void {
  const compiled = compileRoute(route, deps);
  const { config, orm } = deps;

  const revoking = async (ctx: Context) => {
    try {
      await handle(ctx);
    } finally {
      deps.authCache.invalidate();
    }
  };

  const dashboard = isDashboardAuth(route.auth) ? route.auth : undefined;
  const keyAuth = route.auth === 'none' || isDashboardAuth(route.auth) ? undefined : route.auth;

  const handle = async (ctx: Context) => {
    const requestId = ctx.state.requestId as string;
    // The request's EntityManager (its identity map and unit of work), forked on first use: a read whose key and
    // budget the process already holds and whose data comes from a raw read (db/reads.ts, through the ORM's root
    // EntityManager) needs none (a fork is a unit of work, an identity map and two process.env writes in MikroORM).
    let forked: EntityManager | undefined;
    const em = () => (forked ??= orm.em.fork());
    let auth: ApiKeyAuth | undefined;
    let session: DashboardSession | undefined;

    if (dashboard) {
      session = authenticateDashboard(config.dashboard, ctx.get('authorization') || undefined, dashboard.dashboard);
      await requireLiveSession(em(), session, deps.authCache);
      // People get the same per-window budget as a key, counted per user.
      const limit = await consumeRateLimit(
        em(),
        `dashboard:${session.identity}:${session.userId}`,
        config.rateLimit.limit,
        config.rateLimit.windowSeconds,
      );
      ctx.set(rateLimitHeaders(limit, config.rateLimit.windowSeconds));
      if (limit.exceeded) throw errors.rateLimited(limit.resetSeconds, 'Too many requests for this user');
    }

    if (keyAuth) {
      try {
        auth = keyAuth.publicKey
          ? await authenticatePublicKey(
              em,
              ctx.get('x-public-key') || undefined,
              ctx.get('authorization') || undefined,
              deps.authCache,
            )
          : await authenticateApiKey(em, ctx.get('authorization') || undefined, deps.authCache);
      } catch (error) {
        // Only a key that matched nothing spends (or meets) its address's budget: a valid key never gets here.
        if (error instanceof UnknownApiKeyError) keyGuessesOf(deps).spend(addressBucket(ctx.ip));
        throw error;
      }
      const browser = keyAuth.publicKey
        ? await consumeBrowserLimits(
            em(),
            {
              keyId: auth.keyId,
              ip: ctx.ip,
              sessionId:
                (ctx.params as Record<string, string | undefined>).sessionId ?? (ctx.get('x-session-id') || undefined),
            },
            config,
            (headers) => ctx.set(headers),
          )
        : [];
      // Secret keys lease their budget in blocks (no write per request); browser endpoints already write their
      // per-IP and per-session counts, and count a public key's budget exactly, one request at a time.
      const { limit: budget, windowSeconds } = config.rateLimit;
      const limit = keyAuth.publicKey
        ? await consumeRateLimit(em(), auth.keyId, budget, windowSeconds)
        : await deps.rateLimiter.consume(em, auth.keyId, budget, windowSeconds);
      ctx.set(rateLimitHeaders(limit.exceeded ? limit : tightest([limit, ...browser]), config.rateLimit.windowSeconds));
      if (limit.exceeded) throw errors.rateLimited(limit.resetSeconds);
      authorize(auth, keyAuth);
      // Browser routes are not merchant-scoped (an organization public key names its merchant through a checkout,
      // checked in browser-sessions.service.ts); a merchant public key's merchant is known now.
      if (keyAuth.publicKey && auth.merchantId) await requireActiveMerchant(em, auth.merchantId, deps.authCache);
    }

    let params: Record<string, unknown>;
    try {
      params = validate(compiled.params, { ...ctx.params }, 'params') as Record<string, unknown>;
    } catch {
      // A malformed id can never name an existing resource.
      throw malformedIdError(route.params as TSchema | undefined, { ...(ctx.params as Record<string, unknown>) });
    }
    // Document 1: "omitting it gives 400 validation_error with code IDEMPOTENCY_KEY_REQUIRED" — before any other
    // problem of the request, so a keyless client always learns that first.
    if (route.idempotency === 'required' && !idempotencyKeySent(ctx)) throw idempotencyKeyRequired();
    const query = validate(compiled.query, normalizeQuery(ctx.query, compiled.commaSeparated), 'query') as Record<
      string,
      unknown
    >;
    const body = readBody(ctx, route, compiled);

    let merchantId: string | undefined;
    let organizationId: string | undefined;
    if (auth && keyAuth && keyAuth.merchantScoped !== false) {
      const requested = (params.merchant_id ?? query.merchant_id ?? body.merchant_id) as string | undefined;
      merchantId = await resolveMerchant(em, auth, requested, deps.authCache);
      // A secret key may still read a non-active merchant's records; its writes are refused.
      if (route.method !== 'get' && !route.anyMerchantStatus) {
        await requireActiveMerchant(em, merchantId, deps.authCache);
      }
    }
    if (session && dashboard?.tenant) {
      const tenantId = await resolveDashboardTenant(
        em(),
        session,
        dashboard.tenant,
        (name) => ctx.get(name) || undefined,
        route.method === 'get' || route.changesNothing ? 'read' : 'write',
        { anyMerchantStatus: route.anyMerchantStatus },
      );
      if (dashboard.tenant === 'merchant') merchantId = tenantId;
      else organizationId = tenantId;
    }
    // The request's server span names the merchant it acts on, once authenticated (never a key or a secret).
    if (merchantId) annotateActiveSpan({ 'switchyard.merchant_id': merchantId });

    const idempotencyKey = ctx.get('idempotency-key') || (body.idempotency_key as string | undefined);
    delete body.idempotency_key;
    // An API key's keys are its merchant's (or organization's); a person's are their own on that merchant.
    const idempotencyScope = auth
      ? (merchantId ?? auth.organizationId)
      : session && `dashboard:${session.identity}:${session.userId}:${merchantId ?? organizationId ?? ''}`;
    const idempotency =
      route.idempotency && idempotencyScope && idempotencyKey
        ? {
            scopeId: idempotencyScope,
            key: idempotencyKey,
            fingerprint: requestFingerprint(route.method, route.path, params, body),
          }
        : undefined;

    /** `txEm`: the transaction's EntityManager when the work runs in one; otherwise the request's, on first use. */
    const run = async (txEm?: EntityManager): Promise<StoredResponse> => {
      const result = await route.handler({
        params,
        query,
        body,
        get em(): EntityManager {
          return txEm ?? em();
        },
        deps,
        requestId,
        client: { ip: ctx.ip, userAgent: ctx.get('user-agent') || null },
        header: (name: string) => ctx.get(name) || undefined,
        idempotencySeed: idempotency && createHash('sha256').update(JSON.stringify(idempotency)).digest('hex'),
        auth: auth as ApiKeyAuth,
        get merchantId(): string {
          if (!merchantId) throw new Error(`${route.path} is not merchant-scoped`);
          return merchantId;
        },
        get session(): DashboardSession {
          if (!session) throw new Error(`${route.path} is not a Dashboard route`);
          return session;
        },
        get organizationId(): string {
          if (!organizationId) throw new Error(`${route.path} is not an organization Dashboard route`);
          return organizationId;
        },
      });
      if (config.validateResponses) checkResponse(compiled, route, result);
      return { status: result.status, body: present(route, result, requestId) };
    };

    let response: StoredResponse;
    if (route.idempotency && idempotencyScope) {
      if (!idempotency) {
        if (route.idempotency === 'required') throw idempotencyKeyRequired();
        response = route.waitsOnWorkflow ? await run() : await em().transactional(run);
      } else {
        if (idempotency.key.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
          throw errors.validation({ 'Idempotency-Key': [`must be at most ${MAX_IDEMPOTENCY_KEY_LENGTH} characters`] });
        }
        const outcome = await runIdempotent(
          orm.em,
          em,
          {
            ...idempotency,
            ttlSeconds: config.idempotencyTtlSeconds,
            waitMs: config.idempotencyWaitMs,
            leaseSeconds: idempotencyLeaseSeconds(config.workflowWaitMs),
            // Stored responses hold personal data and secrets shown once (signing secrets, webhook_url tokens).
            seal: (text) => encryptSecret(config.encryptionKeys, text),
            open: (stored) => decryptSecret(config.encryptionKeys, stored),
          },
          route.waitsOnWorkflow ? 'no-transaction' : 'transaction',
          run,
        );
        if (outcome.replayed) {
          ctx.set('Idempotent-Replayed', 'true');
          ctx.status = outcome.status;
          if (outcome.storedJson !== undefined) {
            // The stored text is the first answer's JSON: its bytes go out as they are (the type before the body,
            // so Koa does not guess one from a string).
            ctx.type = 'application/json';
            ctx.body = outcome.storedJson;
          }
          return;
        }
        response = outcome;
      }
    } else if (route.method === 'get' || route.waitsOnWorkflow || route.ownTransactions) {
      response = await run();
    } else {
      // Mutations run in one transaction: a request that fails changes nothing.
      response = await em().transactional(run);
    }

    ctx.status = response.status;
    if (response.body !== undefined) ctx.body = response.body;
  };

  for (const path of [`${prefix}${route.path}`, ...(route.alsoAt ?? [])]) {
    table.add(route.method, path, route.revokesCredentials ? revoking : handle);
  }
}
