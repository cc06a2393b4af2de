import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import {
  folderGraph,
  importCycles,
  importGraph,
  importsOf,
  layerViolations,
  sourceFiles,
  violationsOf,
} from '../helpers/import-graph';
import {
  migrationTables,
  ownerMapProblems,
  rawSqlCalls,
  rawSqlOutsideDb,
  rawWritesByOthers,
  rawWritesNotOwned,
  rawWriteTables,
} from '../helpers/raw-sql';
import * as registeredWorkflows from '../../workflows';
import { TABLE_OWNERS } from '../../db/table-owners';

const ROOT = path.resolve(__dirname, '../..');

describe('architecture: the import rule (docs/architecture.md)', () => {
  it('holds for every file of api/, domain/, db/, activities/, workflows/ and worker/', () => {
    const violations = layerViolations(ROOT).map((v) => `${v.file} → ${v.target}: ${v.rule}`);
    expect(violations).to.deep.equal([]);
  });

  it('reports an activity that imports from api/', () => {
    const imports = importsOf(
      ROOT,
      'activities/transactions/x.ts',
      "import { recordEvent } from '../../api/modules/x';",
    );
    expect(violationsOf('activities/transactions/x.ts', imports)).to.have.length(1);
  });

  it('reports an activity that imports a workflow module, and allows its workflows/<name>.shared.ts', () => {
    const file = 'activities/transactions/x.ts';
    const workflow = importsOf(ROOT, file, "import { transactionWorkflowId } from '../../workflows/transaction';");
    const shared = importsOf(ROOT, file, "import { transactionWorkflowId } from '../../workflows/transaction.shared';");
    expect(violationsOf(file, workflow)).to.have.length(1);
    expect(violationsOf(file, shared)).to.deep.equal([]);
  });

  it('reports a db/ file that imports from api/, even a type', () => {
    const imports = importsOf(ROOT, 'db/x.ts', "import type { Config } from '../api/config';");
    expect(violationsOf('db/x.ts', imports).map((v) => v.rule)).to.deep.equal([
      'db/ must not import api/ (not even types)',
    ]);
  });

  it('reports domain/ importing activities/ at runtime but allows a type-only import', () => {
    const runtime = importsOf(ROOT, 'domain/x.ts', "import { createActivities } from '../activities';");
    const typeOnly = importsOf(ROOT, 'domain/x.ts', "import type { Activities } from '../activities';");
    expect(violationsOf('domain/x.ts', runtime)).to.have.length(1);
    expect(violationsOf('domain/x.ts', typeOnly)).to.deep.equal([]);
  });

  it('reports a workflow importing domain/ at runtime (workflows use workflows/lib and types only)', () => {
    const imports = importsOf(ROOT, 'workflows/x.ts', "import { newId } from '../domain/platform/ids';");
    expect(violationsOf('workflows/x.ts', imports)).to.have.length(1);
  });

  it('reports an API module that starts workflows itself instead of through the api/temporal gateway', () => {
    const client = importsOf(ROOT, 'api/modules/x/x.service.ts', "import { Client } from '@temporalio/client';");
    const workflow = importsOf(
      ROOT,
      'api/modules/x/x.service.ts',
      "import { transactionWorkflow } from '../../../workflows/transaction';",
    );
    expect(violationsOf('api/modules/x/x.service.ts', client)).to.have.length(1);
    expect(violationsOf('api/modules/x/x.service.ts', workflow)).to.have.length(1);
    expect(
      violationsOf(
        'api/temporal/transactions.ts',
        importsOf(
          ROOT,
          'api/temporal/transactions.ts',
          "import { transactionWorkflow } from '../../workflows/transaction';",
        ),
      ),
    ).to.deep.equal([]);
  });
});

describe('architecture: no import circle (docs/architecture.md)', () => {
  it('has no cycle between files of the server, type-only imports included', () => {
    expect(importCycles(importGraph(ROOT))).to.deep.equal([]);
  });

  it('has no cycle between top-level folders at run time', () => {
    expect(importCycles(folderGraph(importGraph(ROOT, true)))).to.deep.equal([]);
  });

  it('finds a cycle closed by a type-only import, and none in a graph that only fans in', () => {
    const circle = new Map([
      ['activities/x.ts', ['workflows/y.ts']],
      ['workflows/y.ts', ['workflows/lib/z.ts', 'activities/index.ts']],
      ['activities/index.ts', ['activities/x.ts']],
    ]);
    expect(importCycles(circle)).to.deep.equal([
      'activities/x.ts → workflows/y.ts → activities/index.ts → activities/x.ts',
    ]);
    const fanIn = new Map([
      ['a.ts', ['c.ts']],
      ['b.ts', ['c.ts', 'a.ts']],
    ]);
    expect(importCycles(fanIn)).to.deep.equal([]);
  });

  it('names in every workflows/*.shared.ts only workflows registered in workflows/index.ts', () => {
    const registered: Record<string, unknown> = registeredWorkflows;
    const names = fs
      .readdirSync(path.join(ROOT, 'workflows'))
      .filter((file) => file.endsWith('.shared.ts'))
      .flatMap((file) => {
        // The file's exports as the worker loads them (a name, not a type, is what must match).
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        const exports = require(path.join(ROOT, 'workflows', file)) as Record<string, unknown>;
        return Object.entries(exports).filter(([key]) => key.endsWith('_WORKFLOW'));
      });
    expect(names).to.not.be.empty;
    expect(names.filter(([, name]) => typeof registered[name as string] !== 'function')).to.deep.equal([]);
  });
});

describe('architecture: file names (docs/architecture.md)', () => {
  const KINDS = ['schema', 'routes', 'service', 'presenter', 'rules', 'middleware'];

  it('names every API module file <subject>.<kind>.ts with one of the known kinds', () => {
    const odd = sourceFiles(ROOT, 'api/modules').filter(
      (file) => !new RegExp(`/[a-z0-9-]+\\.(${KINDS.join('|')})\\.ts$`).test(file),
    );
    expect(odd).to.deep.equal([]);
  });

  it('names every domain file <area>.<kind>.ts after its folder (platform/ and the connector library excepted)', () => {
    const odd = sourceFiles(ROOT, 'domain')
      .filter((file) => !file.startsWith('domain/platform/') && !file.startsWith('domain/connectors/'))
      .filter((file) => {
        const [, area, name] = file.split('/');
        return !name.startsWith(`${area}.`) || name.split('.').length !== 3;
      });
    expect(odd).to.deep.equal([]);
  });
});

describe('architecture: one way to write (docs/architecture.md)', () => {
  it('runs raw SQL only under db/ (api/, domain/, activities/, worker/ and workflows/ call repository functions)', () => {
    expect(rawSqlOutsideDb(ROOT)).to.deep.equal([]);
  });

  it('finds a raw SQL call however it is reached, and not a Temporal client starting a workflow', () => {
    const source = [
      "const [row] = await em.execute<Array<{ id: string }>>('select id from refunds where id = ?', [id]);",
      'await orm.em',
      '  .fork()',
      "  .execute('select 1');",
      "await tx.getConnection().execute('update refunds set status = ?', [status]);",
      'const knex = em.getConnection().getKnex();',
      "await knex.raw('select 1');",
      'const result = await client.workflow.execute(transactionWorkflow, { workflowId, taskQueue });',
      'await client.workflow',
      '  .execute(connectorCredentialCheckWorkflow, options);',
      '// em.execute in a comment runs nothing',
      '/** nor in a doc comment: em.execute(sql) */',
      'const tag = String.raw`a\\b`;',
    ].join('\n');
    expect(rawSqlCalls(source)).to.deep.equal([
      "1: const [row] = await em.execute<Array<{ id: string }>>('select id from refunds where id = ?', [id]);",
      "4: .execute('select 1');",
      "5: await tx.getConnection().execute('update refunds set status = ?', [status]);",
      '6: const knex = em.getConnection().getKnex();',
      "7: await knex.raw('select 1');",
    ]);
  });

  it('names an owner in db/table-owners.ts for every table the migrations create, and only for those', () => {
    expect(migrationTables(ROOT)).to.include.members(['transactions', 'rate_limit_counters', 'card_token_cvcs']);
    expect(ownerMapProblems(ROOT)).to.deep.equal([]);
  });

  it('reports a table a migration creates that the owner map does not name, and an owner that does not exist', () => {
    const { transactions: _transactions, ...withoutTransactions } = TABLE_OWNERS;
    expect(
      ownerMapProblems(ROOT, { ...withoutTransactions, refunds: 'db/repositories/nowhere.repository.ts' }),
    ).to.deep.equal([
      'transactions: created by a migration, has no owner',
      'refunds: its owner db/repositories/nowhere.repository.ts does not exist',
    ]);
  });

  it('writes a table that has a db/repositories owner with raw SQL only in that owner', () => {
    expect(rawWritesByOthers(ROOT)).to.deep.equal([]);
  });

  it('reports a raw write from a repository that is not the table’s owner, and one outside db/ to a repository’s table', () => {
    const refund = "await em.execute('update refunds set announced_at = now() where transaction_id = ?', [id]);";
    const product = "await em.execute('update products set status = ? where id = ?', [status, id]);";
    expect(rawWritesNotOwned('db/repositories/transactions.repository.ts', refund)).to.deep.equal([
      'db/repositories/transactions.repository.ts → refunds (owner: db/repositories/refunds.repository.ts)',
    ]);
    expect(rawWritesNotOwned('db/repositories/refunds.repository.ts', refund)).to.deep.equal([]);
    expect(rawWritesNotOwned('domain/transactions/transactions.refunds.ts', refund)).to.have.length(1);
    expect(rawWritesNotOwned('db/repositories/refunds.repository.ts', product)).to.deep.equal([
      'db/repositories/refunds.repository.ts → products (owner: api/modules/products)',
    ]);
  });

  it('reads through db/reads.ts only inside db/repositories (its named statements are a repository internal)', () => {
    const importers = [...importGraph(ROOT)]
      .filter(([file, targets]) => targets.includes('db/reads.ts') && !file.startsWith('db/repositories/'))
      .map(([file]) => file);
    expect(importers).to.deep.equal([]);
  });

  it('finds the tables a raw statement writes (and not the SET of an upsert)', () => {
    const sql = `insert into orders (id) values (?) on conflict (id) do update set id = excluded.id;
      update card_tokens set used_by = ?; delete from "rate_limit_counters" where true`;
    expect(rawWriteTables(sql)).to.deep.equal(['orders', 'card_tokens', 'rate_limit_counters']);
  });

  it('finds the table of an aliased raw update (update checkout_sessions cs set …, with or without AS)', () => {
    const sql = `update checkout_sessions cs set status = 'initiated' where cs.id = ?;
      UPDATE "payment_instruments" AS i SET status = 'revoked'; update orders o
        set status = ?; insert into connector_health as h (connector_id) values (?) on conflict (connector_id) do update set state = 'open'`;
    expect(rawWriteTables(sql)).to.deep.equal([
      'checkout_sessions',
      'payment_instruments',
      'orders',
      'connector_health',
    ]);
  });
});

/** web/ is browser code bundled on its own: its imports stay under web/ or are the UI library (preact). */
function webImportViolations(file: string, imports: { target: string }[]): string[] {
  return imports
    .filter(({ target }) => !target.startsWith('web/') && target !== 'preact')
    .map(({ target }) => `${file} → ${target}`);
}

function webSourceFiles(dir: string): string[] {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const rel = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'dist' ? [] : webSourceFiles(rel);
    return /\.tsx?$/.test(entry.name) ? [rel] : [];
  });
}

describe('architecture: the Dashboard web app (web/) imports nothing from the server', () => {
  it('imports only files under web/ and preact, in every web/ source file', () => {
    const files = webSourceFiles('web');
    expect(files).to.include('web/dashboard/src/main.tsx');
    const violations = files.flatMap((file) =>
      webImportViolations(file, importsOf(ROOT, file, fs.readFileSync(path.join(ROOT, file), 'utf8'))),
    );
    expect(violations).to.deep.equal([]);
  });

  it('reports a web/ file that imports the server, even a type, or a server-side package', () => {
    const file = 'web/dashboard/src/pages/x.tsx';
    const source = [
      "import type { Subscription } from '../../../../db/entities';",
      "import { refuseOperation } from '../../../../workflows/lib/subscription-rules';",
      "import { Type } from '@sinclair/typebox';",
      "import { useState } from 'preact/hooks';",
      "import { call } from '../api';",
    ].join('\n');
    expect(webImportViolations(file, importsOf(ROOT, file, source))).to.have.length(3);
  });
});
