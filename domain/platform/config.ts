/**
 * Every setting the service reads from its environment, parsed once and frozen. Nothing else in the
 * code base reads process.env (scripts set variables before calling loadConfig).
 */
import { decodeMasterKey, keyring, type Keyring } from './crypto';
import { loadVaultKeys, type VaultKeys } from './vault-keys';
import { loadDashboardKeys, type DashboardKeys } from './dashboard-keys';
import { isIP } from 'node:net';
import { parseCidr } from './cidr';
import { telemetryConfig, type TelemetryConfig } from './telemetry-config';
import { DEFAULT_DUNNING_SCHEDULE_DAYS } from '../../workflows/lib/subscription-rules';

export type AppEnv = 'local' | 'test' | 'production';

export interface Config {
  /** local and test relax a few production-only checks (e.g. plain-http webhook URLs to loopback). */
  readonly env: AppEnv;
  /** The address the API listens on (HOST): loopback outside production, every interface in production. */
  readonly host: string;
  readonly port: number;
  readonly databaseUrl: string;
  /** The API's PostgreSQL pool: size, and per-session limits so no request can hold a connection for long. */
  readonly databasePool: {
    readonly size: number;
    readonly statementTimeoutMs: number;
    readonly idleInTransactionTimeoutMs: number;
  };
  readonly temporal: {
    readonly address: string;
    readonly namespace: string;
  };
  /** 32-byte master key for envelope encryption of secrets at rest (customer documents, credentials). */
  readonly encryptionKey: Buffer;
  /** encryptionKey as `current` plus the previous master keys still accepted for decryption (key rotation). */
  readonly encryptionKeys: Keyring;
  /** Where providers reach this API from outside (connector webhook_url), without a trailing slash. */
  readonly publicBaseUrl: string;
  /** The sandbox PSP (sandbox/) that test-mode connectors call, without a trailing slash. */
  readonly sandboxUrl: string;
  /** Card vault: the P-256 key browsers encrypt card data to, and the card-fingerprint HMAC key (domain/platform/vault-keys.ts). */
  readonly vault: VaultKeys;
  readonly idempotencyTtlSeconds: number;
  /** How long a request waits for a concurrent one holding the same idempotency key before getting 409. */
  readonly idempotencyWaitMs: number;
  /**
   * Longest a request waits on a workflow (a charge, capture, void, refund or card verification) before answering
   * that it is still processing. A claimed idempotency key's lease is this plus a margin (api/http/idempotency.ts).
   */
  readonly workflowWaitMs: number;
  readonly rateLimit: {
    readonly limit: number;
    readonly windowSeconds: number;
    /**
     * Public-key (browser) endpoints, besides the key's own budget: per client IP and per browser session, each
     * within the key. A public key is shared by every buyer of the merchant; one of them must not exhaust it.
     */
    readonly publicPerIp: number;
    readonly publicPerSession: number;
    /** Well-formed API keys that match no active key, per client address and minute (then 429 before any lookup). */
    readonly unknownKeysPerIp: number;
  };
  /**
   * Proxies (CIDRs) whose X-Forwarded-For entries are believed; none by default, so a client cannot choose its own
   * address for the per-IP limits (api/http/client-address.ts).
   */
  readonly trustedProxies: readonly string[];
  /**
   * The HTTP server's own limits, so slow clients cannot hold sockets for minutes (Node's defaults: 60 s for headers,
   * 300 s for a request, unlimited connections): time to receive the headers and the whole request (not the
   * response: a handler may wait on a workflow for WORKFLOW_WAIT_MS), and open connections at once (more are closed).
   */
  readonly server: {
    readonly headersTimeoutMs: number;
    readonly requestTimeoutMs: number;
    readonly maxConnections: number;
  };
  /** Largest JSON body accepted, in bytes. */
  readonly bodyLimitBytes: number;
  /**
   * Workflow runs each of the worker's Workers keeps cached (sticky). Each costs about 0.15–0.35 MiB, and the
   * SDK's default (sized from the heap limit: 2,311 at a 4 GiB heap) let 10,000 sleeping subscriptions take the
   * worker to 1.9 GiB; 1,000 keeps the cache under ~350 MiB per Worker (docs/benchmarks.md). An evicted run is
   * replayed from its history when it wakes.
   */
  readonly workerMaxCachedWorkflows: number;
  readonly logLevel: string;
  /** Metrics endpoints and trace export (telemetry-config.ts). */
  readonly telemetry: TelemetryConfig;
  /** Validate every response against its declared schema (on in tests, so schema drift fails loudly). */
  readonly validateResponses: boolean;
  readonly dashboard: DashboardConfig;
  /** Outgoing e-mail (invitations, password resets): an smtp:// or smtps:// URL, and the From address. */
  readonly mail: { readonly smtpUrl: string; readonly from: string };
  readonly subscriptions: {
    /**
     * Days after a failed renewal (dunning_started_at) of each retry; the last failure cancels. Handed to each new
     * subscription workflow as input, so a running subscription keeps the schedule it started with.
     */
    readonly dunningScheduleDays: readonly number[];
  };
  /**
   * Days after a provider call was sent (a charge attempt, a capture or void) before an outcome nobody could tell is
   * escalated as in doubt: the merchant is told (transaction.in_doubt) and the charge's reconciler stops asking.
   */
  readonly providerOutcomeInDoubtDays: number;
  /** Minutes a card charge waits for the buyer's 3-D Secure challenge before it fails authentication_abandoned. */
  readonly threeDsChallengeMinutes: number;
  /**
   * How much work one test-clock advance may ask of the shared worker: how far one advance moves the clock, how far
   * past its start the clock may ever go (calendar months), and the renewals due on its subscriptions in one advance.
   */
  readonly testClocks: {
    readonly maxAdvanceMonths: number;
    readonly maxSpanMonths: number;
    readonly renewalsPerAdvance: number;
    /**
     * The slots of the Worker on the test-clock task queue: how many workflow tasks and activities of clock-driven
     * work run at once, whatever the size of the advance.
     */
    readonly worker: { readonly maxWorkflowTasks: number; readonly maxActivities: number };
    /**
     * The pace of an advance: at most pageSize subscriptions of the clock have work in flight, and the advance rests
     * pauseMs between two pages, so the machine's cores go to live charges in between.
     */
    readonly advance: { readonly pageSize: number; readonly pauseMs: number };
  };
}

/** Dashboard sessions (people): token lifetimes and sign-in throttles. */
export interface DashboardConfig {
  readonly keys: DashboardKeys;
  /** `iss` of every access token. */
  readonly issuer: string;
  readonly accessTokenSeconds: number;
  /** One refresh token's lifetime (each use rotates it), and the longest a family lives without a new login. */
  readonly refreshTokenSeconds: number;
  readonly refreshFamilySeconds: number;
  /** Failed logins per e-mail (per identity) in one window before the account answers as a wrong password. */
  readonly loginFailuresPerEmail: number;
  /** Login and change-password attempts per client IP in one window (then 429). */
  readonly loginAttemptsPerIp: number;
  readonly loginWindowSeconds: number;
  /** Forgot-password, per login window: messages per e-mail (then silently none) and requests per IP (then 429). */
  readonly forgotPerEmail: number;
  readonly forgotPerIp: number;
  /** Reset-password attempts per login window: per client IP and per presented token (then 429, before any hash). */
  readonly resetPerIp: number;
  readonly resetPerToken: number;
  readonly resetTokenSeconds: number;
  /** Where links in e-mails point (the Dashboard web app), without a trailing slash. */
  readonly appUrl: string;
  /**
   * Organization connector credential checks (each is an authenticated call to the provider), per window: per
   * connector and per organization (then 429).
   */
  readonly credentialChecksPerConnector: number;
  readonly credentialChecksPerOrganization: number;
  readonly credentialCheckWindowSeconds: number;
}

export class ConfigError extends Error {}

function int(env: NodeJS.ProcessEnv, name: string, fallback: number, min = 1): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) throw new ConfigError(`${name} must be an integer >= ${min}`);
  return value;
}

function required(env: NodeJS.ProcessEnv, name: string): string {
  const value = env[name];
  if (!value) throw new ConfigError(`${name} is required`);
  return value;
}

/** ENCRYPTION_KEY (current) and ENCRYPTION_KEYS_PREVIOUS (comma-separated base64); also used by npm run rotate-keys. */
export function loadKeyring(env: NodeJS.ProcessEnv = process.env): Keyring {
  const previous = (env.ENCRYPTION_KEYS_PREVIOUS ?? '')
    .split(',')
    .map((key) => key.trim())
    .filter(Boolean);
  try {
    return keyring(decodeMasterKey(required(env, 'ENCRYPTION_KEY')), previous.map(decodeMasterKey));
  } catch (error) {
    throw error instanceof ConfigError
      ? error
      : new ConfigError('ENCRYPTION_KEY and ENCRYPTION_KEYS_PREVIOUS must each be 32 bytes, base64-encoded');
  }
}

function url(env: NodeJS.ProcessEnv, name: string, fallback: string): string {
  const raw = env[name] || fallback;
  try {
    const parsed = new URL(raw);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error();
  } catch {
    throw new ConfigError(`${name} must be an http(s) URL`);
  }
  return raw.replace(/\/+$/, '');
}

function dashboardKeys(env: NodeJS.ProcessEnv, masterKey: Buffer): DashboardKeys {
  try {
    return loadDashboardKeys(env, masterKey);
  } catch {
    throw new ConfigError('DASHBOARD_JWT_KEY and DASHBOARD_JWT_KEYS_PREVIOUS must each be at least 32 bytes, base64');
  }
}

/** smtp:// or smtps://; outside production also file:///dir (messages written there as .eml, no mail server). */
function smtpUrl(env: NodeJS.ProcessEnv, appEnv: AppEnv): string {
  const raw = env.SMTP_URL || 'smtp://127.0.0.1:1025';
  const allowed = appEnv === 'production' ? ['smtp:', 'smtps:'] : ['smtp:', 'smtps:', 'file:'];
  try {
    if (!allowed.includes(new URL(raw).protocol)) throw new Error();
  } catch {
    throw new ConfigError(`SMTP_URL must be a URL with one of ${allowed.join(' ')}`);
  }
  return raw;
}

/**
 * Reset and invitation links (DASHBOARD_URL) and connector webhook_url tokens (PUBLIC_BASE_URL) are secrets in URLs:
 * production sends them over https only. The local default (http://localhost:3000) must be replaced there.
 */
function requireHttps(env: NodeJS.ProcessEnv): void {
  for (const name of ['PUBLIC_BASE_URL', 'DASHBOARD_URL']) {
    const raw = env[name] || (name === 'DASHBOARD_URL' ? env.PUBLIC_BASE_URL : undefined);
    let protocol: string | undefined;
    try {
      protocol = raw ? new URL(raw).protocol : undefined;
    } catch {
      protocol = undefined;
    }
    if (protocol !== 'https:') throw new ConfigError(`In production ${name} must be an https URL`);
  }
}

/** TRUSTED_PROXIES: comma-separated CIDRs or addresses (e.g. `10.0.0.0/8,fd00::/8`); empty by default. */
function trustedProxies(env: NodeJS.ProcessEnv): readonly string[] {
  const cidrs = (env.TRUSTED_PROXIES ?? '')
    .split(',')
    .map((cidr) => cidr.trim())
    .filter(Boolean);
  for (const cidr of cidrs) {
    try {
      parseCidr(cidr);
    } catch {
      throw new ConfigError(`TRUSTED_PROXIES must be comma-separated CIDRs (e.g. 10.0.0.0/8); got ${cidr}`);
    }
  }
  return Object.freeze(cidrs);
}

/** SUBSCRIPTION_DUNNING_SCHEDULE_DAYS: 1 to 10 whole days, strictly increasing, at most 365 (default 1,3,5,7). */
function dunningSchedule(env: NodeJS.ProcessEnv): readonly number[] {
  const raw = env.SUBSCRIPTION_DUNNING_SCHEDULE_DAYS;
  if (raw === undefined || raw.trim() === '') return DEFAULT_DUNNING_SCHEDULE_DAYS;
  const days = raw.split(',').map((part) => Number(part.trim()));
  const valid =
    days.length <= 10 &&
    days.every((day, i) => Number.isInteger(day) && day >= 1 && day <= 365 && (i === 0 || day > days[i - 1]));
  if (!valid) {
    throw new ConfigError(
      'SUBSCRIPTION_DUNNING_SCHEDULE_DAYS must be 1 to 10 comma-separated whole days (1-365), strictly increasing',
    );
  }
  return Object.freeze(days);
}

function vaultKeys(env: NodeJS.ProcessEnv, masterKey: Buffer): VaultKeys {
  try {
    return loadVaultKeys(env, masterKey);
  } catch {
    throw new ConfigError(
      'VAULT_PRIVATE_KEY must be an EC P-256 PKCS#8 key (PEM, or DER in base64) and CARD_FINGERPRINT_KEY 32 bytes in base64',
    );
  }
}

/**
 * HOST, the address the API listens on. A local or test API (SSRF guard off, plain-http webhooks allowed) stays on
 * loopback unless HOST opens it; production listens on every interface, as a container must for its published port.
 */
export function listenHost(env: NodeJS.ProcessEnv, appEnv: AppEnv): string {
  const host = env.HOST || (appEnv === 'production' ? '0.0.0.0' : '127.0.0.1');
  if (host !== 'localhost' && !isIP(host)) throw new ConfigError('HOST must be an IP address or localhost');
  return host;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const encryptionKeys = loadKeyring(env);
  // No default: an unset APP_ENV used to mean local, which quietly turned off the production-only checks (SSRF
  // guard on webhook deliveries, https-only webhook URLs) on any deployment that forgot it. npm start and the test
  // stack set it explicitly; everything else must say which environment it is.
  if (!env.APP_ENV) throw new ConfigError('APP_ENV is required: set it to production, or to local or test on purpose');
  const appEnv = env.APP_ENV as AppEnv;
  if (!['local', 'test', 'production'].includes(appEnv))
    throw new ConfigError('APP_ENV must be local, test or production');
  if (appEnv === 'production' && (!env.VAULT_PRIVATE_KEY || !env.CARD_FINGERPRINT_KEY)) {
    // Derived from ENCRYPTION_KEY they would change at its rotation: in-flight browser ciphertexts would stop
    // opening and saved cards would stop deduplicating.
    throw new ConfigError(
      'In production set VAULT_PRIVATE_KEY and CARD_FINGERPRINT_KEY (they must outlive ENCRYPTION_KEY rotations)',
    );
  }
  if (appEnv === 'production' && (!env.DASHBOARD_JWT_KEY || !env.SMTP_URL)) {
    // A derived signing key would change at an ENCRYPTION_KEY rotation (every session signed out), and the local
    // mail catcher's address means nobody receives their invitation or reset link.
    throw new ConfigError('In production set DASHBOARD_JWT_KEY and SMTP_URL');
  }
  if (appEnv === 'production') requireHttps(env);
  return Object.freeze({
    env: appEnv,
    host: listenHost(env, appEnv),
    port: int(env, 'PORT', 3000, 0),
    databaseUrl: required(env, 'DATABASE_URL'),
    databasePool: Object.freeze({
      size: int(env, 'DATABASE_POOL_SIZE', 10),
      statementTimeoutMs: int(env, 'DATABASE_STATEMENT_TIMEOUT_MS', 15_000),
      idleInTransactionTimeoutMs: int(env, 'DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS', 15_000),
    }),
    temporal: Object.freeze({
      address: required(env, 'TEMPORAL_ADDRESS'),
      namespace: env.TEMPORAL_NAMESPACE || 'default',
    }),
    encryptionKey: encryptionKeys.current,
    encryptionKeys,
    publicBaseUrl: url(env, 'PUBLIC_BASE_URL', 'http://localhost:3000'),
    sandboxUrl: url(env, 'SANDBOX_URL', 'http://127.0.0.1:4010'),
    vault: vaultKeys(env, encryptionKeys.current),
    idempotencyTtlSeconds: int(env, 'IDEMPOTENCY_TTL_SECONDS', 24 * 60 * 60),
    idempotencyWaitMs: int(env, 'IDEMPOTENCY_WAIT_MS', 10_000),
    workflowWaitMs: int(env, 'WORKFLOW_WAIT_MS', 30_000),
    rateLimit: Object.freeze({
      limit: int(env, 'RATE_LIMIT_REQUESTS', 100),
      windowSeconds: int(env, 'RATE_LIMIT_WINDOW_SECONDS', 60),
      publicPerIp: int(env, 'PUBLIC_RATE_LIMIT_PER_IP', 30),
      publicPerSession: int(env, 'PUBLIC_RATE_LIMIT_PER_SESSION', 20),
      unknownKeysPerIp: int(env, 'UNKNOWN_API_KEYS_PER_IP', 30),
    }),
    trustedProxies: trustedProxies(env),
    server: Object.freeze({
      headersTimeoutMs: int(env, 'SERVER_HEADERS_TIMEOUT_MS', 10_000),
      requestTimeoutMs: int(env, 'SERVER_REQUEST_TIMEOUT_MS', 30_000),
      maxConnections: int(env, 'SERVER_MAX_CONNECTIONS', 2048),
    }),
    bodyLimitBytes: int(env, 'BODY_LIMIT_BYTES', 256 * 1024),
    workerMaxCachedWorkflows: int(env, 'WORKER_MAX_CACHED_WORKFLOWS', 1000, 0),
    logLevel: env.LOG_LEVEL || (appEnv === 'test' ? 'silent' : 'info'),
    telemetry: telemetryConfig(env, appEnv),
    validateResponses: env.VALIDATE_RESPONSES ? env.VALIDATE_RESPONSES === 'true' : appEnv !== 'production',
    dashboard: Object.freeze({
      keys: dashboardKeys(env, encryptionKeys.current),
      issuer: env.DASHBOARD_JWT_ISSUER || 'switchyard',
      accessTokenSeconds: int(env, 'DASHBOARD_ACCESS_TOKEN_SECONDS', 900),
      refreshTokenSeconds: int(env, 'DASHBOARD_REFRESH_TOKEN_SECONDS', 7 * 24 * 60 * 60),
      refreshFamilySeconds: int(env, 'DASHBOARD_SESSION_MAX_SECONDS', 30 * 24 * 60 * 60),
      loginFailuresPerEmail: int(env, 'LOGIN_FAILURES_PER_EMAIL', 10),
      loginAttemptsPerIp: int(env, 'LOGIN_ATTEMPTS_PER_IP', 100),
      loginWindowSeconds: 600,
      forgotPerEmail: int(env, 'FORGOT_PASSWORD_PER_EMAIL', 3),
      forgotPerIp: int(env, 'FORGOT_PASSWORD_PER_IP', 20),
      resetPerIp: int(env, 'RESET_PASSWORD_PER_IP', 20),
      resetPerToken: int(env, 'RESET_PASSWORD_PER_TOKEN', 5),
      resetTokenSeconds: int(env, 'PASSWORD_RESET_TOKEN_SECONDS', 30 * 60),
      appUrl: url(
        env,
        'DASHBOARD_URL',
        `${(env.PUBLIC_BASE_URL || 'http://localhost:3000').replace(/\/+$/, '')}/dashboard`,
      ),
      credentialChecksPerConnector: int(env, 'CREDENTIAL_CHECKS_PER_CONNECTOR', 5),
      credentialChecksPerOrganization: int(env, 'CREDENTIAL_CHECKS_PER_ORGANIZATION', 30),
      credentialCheckWindowSeconds: 600,
    }),
    mail: Object.freeze({
      smtpUrl: smtpUrl(env, appEnv),
      from: env.MAIL_FROM || 'Switchyard <no-reply@switchyard.local>',
    }),
    subscriptions: Object.freeze({ dunningScheduleDays: dunningSchedule(env) }),
    providerOutcomeInDoubtDays: int(env, 'PROVIDER_OUTCOME_IN_DOUBT_DAYS', 7),
    threeDsChallengeMinutes: int(env, 'THREE_DS_CHALLENGE_MINUTES', 15, 1),
    testClocks: Object.freeze({
      maxAdvanceMonths: int(env, 'TEST_CLOCK_MAX_ADVANCE_MONTHS', 12),
      maxSpanMonths: int(env, 'TEST_CLOCK_MAX_SPAN_MONTHS', 24),
      renewalsPerAdvance: int(env, 'TEST_CLOCK_RENEWALS_PER_ADVANCE', 1000),
      worker: Object.freeze({
        // The SDK needs two workflow-task slots on a Worker that caches (its sticky and its normal poller).
        maxWorkflowTasks: int(env, 'TEST_CLOCK_WORKER_MAX_CONCURRENT_WORKFLOW_TASKS', 2, 2),
        maxActivities: int(env, 'TEST_CLOCK_WORKER_MAX_CONCURRENT_ACTIVITIES', 4),
      }),
      advance: Object.freeze({
        pageSize: int(env, 'TEST_CLOCK_ADVANCE_PAGE_SIZE', 5),
        pauseMs: int(env, 'TEST_CLOCK_ADVANCE_PAUSE_MS', 2000, 0),
      }),
    }),
  });
}
