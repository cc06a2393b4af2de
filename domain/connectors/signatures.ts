/** Helpers for verifying inbound webhooks: constant-time comparison, header lookup, JSON parsing. */
import { createHash, timingSafeEqual } from 'node:crypto';
import { InvalidWebhookError, type ConnectorAdapter } from './connector';

/** What parseWebhook receives: the request exactly as it arrived. */
export type WebhookRequest = Parameters<ConnectorAdapter['parseWebhook']>[0];

/** Compares two strings in time independent of where they differ (hashing first equalises the lengths). */
export function safeEqual(a: string, b: string): boolean {
  const left = createHash('sha256').update(a).digest();
  const right = createHash('sha256').update(b).digest();
  return timingSafeEqual(left, right) && a.length === b.length;
}

/** Case-insensitive header lookup (frameworks differ in how they case header names). */
export function headerOf(headers: Record<string, string | undefined>, name: string): string | undefined {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers)) if (key.toLowerCase() === wanted) return value;
  return undefined;
}

export function requireSecret(secret: string | null): string {
  if (!secret) throw new InvalidWebhookError('No webhook secret is configured for this connector');
  return secret;
}

export function parseJsonBody(rawBody: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(rawBody);
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed))
      return parsed as Record<string, unknown>;
  } catch {
    // fall through
  }
  throw new InvalidWebhookError('The webhook body is not a JSON object');
}

/** Timestamp tolerance for schemes that sign one (seconds, either direction). */
export const WEBHOOK_TOLERANCE_SECONDS = 300;

export function checkTimestamp(seconds: number, now = Date.now()): void {
  if (!Number.isFinite(seconds) || Math.abs(now / 1000 - seconds) > WEBHOOK_TOLERANCE_SECONDS) {
    throw new InvalidWebhookError('The webhook timestamp is outside the tolerance');
  }
}
