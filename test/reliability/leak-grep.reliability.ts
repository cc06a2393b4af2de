/**
 * Part 6 — leak grep, run last (scripts/test-reliability.ts orders it so): every secret the suite used (the
 * registry in support/secrets.ts: PANs, CVCs, API keys, connector credentials, passwords, webhook secrets,
 * Dashboard tokens) is searched for, raw, base64 and URL-encoded, in
 *  - a dump of every row of every table (as JSON, so a hit names its table and column; sealed `*_encrypted`
 *    columns are exempt — they hold ciphertext, which is the point),
 *  - every artefact the parts left (the stack's captured logs, every webhook body received, the fuzzer's reports),
 *  - every Temporal workflow history in the namespace, payloads decoded.
 * Goal: 0 hits. The embedded PostgreSQL package ships no pg_dump (only initdb, pg_ctl, postgres) and a system
 * pg_dump older than the server refuses to run, so the dump is made with SQL over the same connection.
 */
import { expect } from 'chai';
import { historyText } from '../helpers/history-text';
import fs from 'node:fs';
import path from 'node:path';
import { stack } from '../helpers/stack';
import { world } from './support/world';
import { webhookReceiver } from './support/receiver';
import { publicTables, settled } from './support/db-checksum';
import { artifactsDir, listArtifacts, saveArtifact } from './support/artifacts';
import { SECRETS_FILE, registeredSecrets, type RegisteredSecret } from './support/secrets';
import { reportSummary } from './support/summary';

interface Hit {
  secret: RegisteredSecret;
  where: string;
}

/** What a leaked value may look like: as is, base64 (Temporal payloads, basic auth), URL-encoded. */
function needlesOf(secret: RegisteredSecret): Array<string | RegExp> {
  if (secret.kind === 'cvc' || secret.value.length < 6) {
    // A short value (a CVC) is everywhere as a substring; only a field that carries it counts.
    const escaped = secret.value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    return [new RegExp(`(cvc|cvv|security_?code|card_?code)["']?\\s*[:=]\\s*["']?${escaped}\\b`, 'i')];
  }
  const variants = new Set([
    secret.value,
    Buffer.from(secret.value).toString('base64').replace(/=+$/, ''),
    encodeURIComponent(secret.value),
  ]);
  return [...variants];
}

function search(text: string, where: string, secrets: RegisteredSecret[], hits: Hit[]): void {
  for (const secret of secrets)
    for (const needle of needlesOf(secret))
      if (typeof needle === 'string' ? text.includes(needle) : needle.test(text)) {
        hits.push({ secret, where });
        break;
      }
}

/** Every row of every table, one JSON object per line; hits name table and column, sealed columns exempt. */
async function scanDatabase(secrets: RegisteredSecret[], hits: Hit[]): Promise<{ tables: number; rows: number }> {
  const em = stack().orm.em.fork();
  const tables = await publicTables();
  let rowCount = 0;
  const dump = fs.createWriteStream(path.join(artifactsDir(), 'database-dump.jsonl'));
  for (const table of tables) {
    const rows = await em.execute<Array<{ row: string }>>(`select row_to_json(t)::text as row from "${table}" t`);
    rowCount += rows.length;
    for (const { row } of rows) {
      dump.write(`${table}\t${row}\n`);
      const found: Hit[] = [];
      search(row, table, secrets, found);
      if (found.length === 0) continue;
      const columns = JSON.parse(row) as Record<string, unknown>;
      for (const hit of found)
        for (const [column, value] of Object.entries(columns)) {
          if (column.endsWith('_encrypted')) continue;
          const cell: Hit[] = [];
          search(JSON.stringify({ [column]: value }), `${table}.${column}`, [hit.secret], cell);
          hits.push(...cell);
        }
    }
  }
  await new Promise<void>((resolve) => dump.end(resolve));
  return { tables: tables.length, rows: rowCount };
}

async function scanTemporal(secrets: RegisteredSecret[], hits: Hit[]): Promise<{ workflows: number; events: number }> {
  const client = stack().api.deps.temporal.client;
  let workflows = 0;
  let events = 0;
  for await (const execution of client.workflow.list()) {
    const history = await client.workflow.getHandle(execution.workflowId, execution.runId).fetchHistory();
    workflows += 1;
    events += history.events?.length ?? 0;
    const text = historyText(history);
    saveArtifact('temporal-histories.jsonl', text + '\n', { append: true });
    search(text, `Temporal ${execution.type} ${execution.workflowId}`, secrets, hits);
  }
  return { workflows, events };
}

describe('Reliability 6: leak grep over the database, logs, Temporal histories and webhook bodies', function () {
  this.timeout(15 * 60_000);

  it('finds none of the secrets the suite used outside their sealed columns', async () => {
    // The world holds every kind of secret, so this part is never vacuous, even run alone.
    await world();
    const receiver = await webhookReceiver();
    await receiver.waitFor((requests) => requests.length > 0, 60_000);
    // Let background work (deliveries, workflows) finish; a tenant that never settles is scanned as it is.
    await settled(undefined, 60_000).catch(() => undefined);
    const secrets = registeredSecrets();
    const kinds = new Set(secrets.map((secret) => secret.kind));
    for (const kind of [
      'pan',
      'cvc',
      'api_key',
      'connector_credential',
      'password',
      'webhook_secret',
      'dashboard_token',
    ])
      expect(kinds, `no ${kind} registered`).to.include(kind);

    // The scanner finds what it looks for: a planted copy of each variant is a hit.
    const probe = secrets.find((secret) => secret.kind === 'connector_credential')!;
    for (const planted of [
      probe.value,
      Buffer.from(probe.value).toString('base64'),
      `{"cvc":"${secrets.find((s) => s.kind === 'cvc')!.value}"}`,
    ]) {
      const found: Hit[] = [];
      search(`…${planted}…`, 'probe', secrets, found);
      expect(found, `planted ${planted}`).to.not.be.empty;
    }

    const hits: Hit[] = [];
    const database = await scanDatabase(secrets, hits);
    const temporal = await scanTemporal(secrets, hits);
    const files = listArtifacts().filter(
      (file) =>
        path.basename(file) !== SECRETS_FILE &&
        !['database-dump.jsonl', 'temporal-histories.jsonl'].includes(path.basename(file)) &&
        !file.includes(`${path.sep}inputs${path.sep}`),
    );
    let bytes = 0;
    for (const file of files) {
      const text = fs.readFileSync(file, 'utf8');
      bytes += text.length;
      search(text, path.relative(artifactsDir(), file), secrets, hits);
    }
    const logFile = path.join(artifactsDir(), 'logs', 'stack.jsonl');
    const logLines = fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8').split('\n').length - 1 : 0;
    // Under `npm run test:reliability` the stack logs (LOG_LEVEL=info) and the runner captures them.
    if (process.env.RELIABILITY_ARTIFACTS_DIR && (process.env.LOG_LEVEL ?? 'silent') !== 'silent')
      expect(logLines, 'captured log lines').to.be.greaterThan(0);
    const webhookBodies = receiver.requests.length;

    reportSummary('leak-grep', {
      secrets: secrets.length,
      tables: database.tables,
      rows: database.rows,
      log_lines: logLines,
      workflows: temporal.workflows,
      history_events: temporal.events,
      webhook_bodies: webhookBodies,
      artefact_files: files.length,
      artefact_bytes: bytes,
      leaks: hits.length,
    });
    expect(temporal.workflows, 'Temporal histories').to.be.greaterThan(0);
    expect(
      hits.map((hit) => `${hit.secret.kind} (${hit.secret.source}) in ${hit.where}`),
      'secrets found outside sealed columns',
    ).to.deep.equal([]);
  });
});
