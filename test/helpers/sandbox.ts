/**
 * Helpers for tests that drive the connector adapters against the sandbox PSP the stack started: fresh per-test
 * credentials (so ledger queries by account never see another test's calls), calls, cards, the ledger and control
 * API, and a local receiver for the sandbox's signed webhooks.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import type { CardData, ProviderCall } from '../../domain/connectors/connector';
import { stack } from './stack';

export const SLUGS = ['provider_a', 'provider_b', 'provider_c', 'provider_d', 'checkout'] as const;
export type Slug = (typeof SLUGS)[number];

const token = () => randomBytes(6).toString('hex');

/** Well-formed test credentials, unique per call. provider_c: access token, or OAuth client credentials. */
export function credentialsFor(slug: Slug, variant: 'api_key' | 'oauth2' = 'api_key'): Record<string, unknown> {
  const id = token();
  switch (slug) {
    case 'provider_a':
      return { secret_key: `sk_test_${id}` };
    case 'provider_b':
      return { username: `ws_${id}@Company.Sandbox`, password: `pw-${id}-secret`, merchant_account: `Merchant${id}` };
    case 'provider_c':
      return variant === 'oauth2'
        ? { client_id: `client-${id}`, client_secret: `secret-${id}` }
        : { access_token: `APP_USR-${id}-1234` };
    case 'provider_d':
      return { api_login_id: `login${id}`, transaction_key: `key${id}` };
    case 'checkout':
      return { secret_key: `sk_sbox_${id}`, processing_channel_id: `pc_${id}` };
  }
}

/** The documented failing credentials: any value containing "invalid". */
export function invalidCredentialsFor(slug: Slug): Record<string, unknown> {
  switch (slug) {
    case 'provider_a':
      return { secret_key: 'sk_test_invalid' };
    case 'provider_b':
      return { username: 'ws_invalid@Company.Sandbox', password: 'password-123', merchant_account: 'Merchant1' };
    case 'provider_c':
      return { access_token: 'APP_USR-invalid' };
    case 'provider_d':
      return { api_login_id: 'invalid', transaction_key: 'key12345678' };
    case 'checkout':
      return { secret_key: 'sk_sbox_invalid', processing_channel_id: 'pc_abc' };
  }
}

/** A webhook secret in each provider's format (domain/connectors/credentials.ts WEBHOOK_SECRET_FORMATS). */
export function webhookSecretFor(slug: Slug, options: { hmac?: boolean } = {}): string {
  switch (slug) {
    case 'provider_a':
      return `whsec_${randomBytes(24).toString('base64')}`;
    case 'provider_b':
      return JSON.stringify({
        username: `hook-${token()}`,
        password: `pw-${token()}`,
        ...(options.hmac === false ? {} : { hmac_key: randomBytes(32).toString('hex').toUpperCase() }),
      });
    case 'provider_d':
      return randomBytes(64).toString('hex').toUpperCase();
    default:
      return `whs-${randomBytes(16).toString('hex')}`;
  }
}

export const currencyFor = (slug: Slug): string => (slug === 'provider_b' || slug === 'provider_c' ? 'BRL' : 'USD');

export function callFor(
  slug: Slug,
  credentials: Record<string, unknown>,
  overrides: Partial<ProviderCall> = {},
): ProviderCall {
  return {
    baseUrl: `${stack().sandboxUrl}/${slug}`,
    credentials,
    idempotencyKey: `idem-${token()}`,
    timeoutMs: 5000,
    ...overrides,
  };
}

export function card(number: string, overrides: Partial<CardData> = {}): CardData {
  return {
    number,
    cvc: '123',
    expMonth: 12,
    expYear: new Date().getUTCFullYear() + 3,
    holderName: 'Ada Lovelace',
    ...overrides,
  };
}

export const reference = () => `tx_${token()}${token()}`;

export interface LedgerEntry {
  provider: string;
  account: string | null;
  operation: string;
  idempotency_key: string | null;
  reference: string | null;
  amount: number | null;
  currency: string | null;
  payment_method: string | null;
  card_last4: string | null;
  outcome: string;
  reason: string | null;
  provider_reference: string | null;
  http_status: number | null;
  replayed: boolean;
  at: string;
  mit_reference?: string | null;
}

export async function ledger(query: Record<string, string>): Promise<LedgerEntry[]> {
  const response = await fetch(`${stack().sandboxUrl}/_sandbox/ledger?${new URLSearchParams(query).toString()}`);
  return ((await response.json()) as { data: LedgerEntry[] }).data;
}

export async function control(
  method: 'GET' | 'POST' | 'DELETE',
  path: string,
  body?: unknown,
): Promise<{ status: number; body: any }> {
  const response = await fetch(`${stack().sandboxUrl}/_sandbox${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null };
}

export async function accountOf(slug: Slug, credentials: Record<string, unknown>): Promise<string> {
  return (await control('POST', '/accounts/resolve', { provider: slug, credentials })).body.account;
}

export interface ReceivedWebhook {
  headers: Record<string, string>;
  rawBody: string;
}

/** A local HTTP endpoint standing in for our inbound-webhook route: records what the sandbox POSTs. */
export class WebhookReceiver {
  private readonly received: ReceivedWebhook[] = [];
  private waiters: (() => void)[] = [];
  private server?: http.Server;
  url = '';

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      req.on('end', () => {
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(req.headers)) if (value !== undefined) headers[name] = String(value);
        this.received.push({ headers, rawBody: body });
        res.end('[accepted]');
        this.waiters.splice(0).forEach((wake) => wake());
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', () => resolve()));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/api/v1/webhooks/inbound/conn_test?token=${token()}`;
    return this;
  }

  /** Registers this receiver with the sandbox for the account the credentials belong to. */
  async register(slug: Slug, credentials: Record<string, unknown>, secret: string): Promise<void> {
    const response = await control('POST', '/webhook-endpoints', {
      provider: slug,
      credentials,
      url: this.url,
      secret,
    });
    if (response.status !== 201)
      throw new Error(`webhook endpoint registration failed: ${JSON.stringify(response.body)}`);
  }

  /** The next webhook not yet taken, waiting up to timeoutMs for it. */
  async next(timeoutMs = 5000): Promise<ReceivedWebhook> {
    const deadline = Date.now() + timeoutMs;
    while (this.received.length === 0) {
      if (Date.now() > deadline) throw new Error('no webhook received');
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 100);
      });
    }
    return this.received.shift()!;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
