/**
 * One worker in a process of its own, for the renewal scale-out figure (measureScaleOut in bench/subscriptions.ts): the stack's
 * environment (database, Temporal, keys), the workflow bundle the parent built (a JSON file named by
 * BENCH_WORKFLOW_BUNDLE, so each worker does not bundle again), every task queue, as worker/main.ts runs it in
 * production. Reports its pid once it polls; stops when the parent asks or goes.
 */
import fs from 'node:fs';
import { openOrm } from '../db/orm';
import { loadConfig } from '../domain/platform/config';
import { startWorker } from '../worker/main';
import { serveParent } from './processes/child';

if (require.main === module) {
  void (async () => {
    const config = loadConfig(process.env);
    const orm = await openOrm(config.databaseUrl);
    const bundle = process.env.BENCH_WORKFLOW_BUNDLE;
    const workflowBundle = bundle ? JSON.parse(fs.readFileSync(bundle, 'utf8')) : undefined;
    const worker = await startWorker({ config, orm, workflowBundle });
    serveParent(
      async () => ({}),
      async () => {
        await worker.stop();
        await orm.close();
      },
    );
    process.send?.({ pid: process.pid });
  })().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
