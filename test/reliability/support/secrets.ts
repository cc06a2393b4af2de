/**
 * The registry of every secret the reliability suite used: PANs, CVCs, API keys, connector credentials,
 * passwords, webhook secrets, Dashboard tokens. Each part registers what it creates; part 6 (leak grep) greps
 * every artefact for each of them. Stored as JSON lines in the artefacts directory so that child processes
 * (see artifacts.ts) can append too.
 */
import fs from 'node:fs';
import path from 'node:path';
import { artifactsDir } from './artifacts';

export type SecretKind =
  'pan' | 'cvc' | 'api_key' | 'connector_credential' | 'password' | 'webhook_secret' | 'dashboard_token';

export interface RegisteredSecret {
  kind: SecretKind;
  value: string;
  /** Where the suite got it (for the report). */
  source: string;
}

/** The file name inside the artefacts directory; part 6 excludes it from the scan. */
export const SECRETS_FILE = 'secrets.jsonl';

const registryPath = () => path.join(artifactsDir(), SECRETS_FILE);

export function registerSecret(kind: SecretKind, value: string | undefined | null, source: string): void {
  if (!value) return;
  fs.appendFileSync(registryPath(), JSON.stringify({ kind, value, source } satisfies RegisteredSecret) + '\n');
}

/** Every string leaf of a credentials object (connector credentials, webhook secrets inside them). */
export function registerSecretsIn(kind: SecretKind, object: Record<string, unknown>, source: string): void {
  for (const [field, value] of Object.entries(object)) {
    if (typeof value === 'string') registerSecret(kind, value, `${source}.${field}`);
    else if (value && typeof value === 'object') registerSecretsIn(kind, value as Record<string, unknown>, source);
  }
}

/** The distinct secrets registered so far (by value). */
export function registeredSecrets(): RegisteredSecret[] {
  if (!fs.existsSync(registryPath())) return [];
  const byValue = new Map<string, RegisteredSecret>();
  for (const line of fs.readFileSync(registryPath(), 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const secret = JSON.parse(line) as RegisteredSecret;
    if (!byValue.has(secret.value)) byValue.set(secret.value, secret);
  }
  return [...byValue.values()];
}
