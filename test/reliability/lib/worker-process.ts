/**
 * The worker as a process of its own, for the chaos part (SIGKILLed and restarted dozens of times): what
 * `node --import tsx worker/main.ts` runs — startWorker with its own ORM — except that it loads the workflow
 * bundle the test built once (WORKFLOW_BUNDLE_PATH, WORKFLOW_SOURCE_MAP_PATH) instead of bundling again on every
 * start, which on this 2-core machine costs more than the chaos itself. The test registers the schedules once.
 * Like worker/main.ts it exits only on a fatal error, and logs why first (the chaos report quotes that line).
 */
import fs from 'node:fs';
import { loadConfig } from '../../../domain/platform/config';
import { createLogger } from '../../../domain/platform/logger';
import { openOrm } from '../../../db/orm';
import { exitOnFatal, startWorker } from '../../../worker/main';

const config = loadConfig();
const logger = createLogger(config.logLevel);
const fatal = exitOnFatal(logger);

(async () => {
  const orm = await openOrm(config.databaseUrl);
  const workflowBundle = {
    code: fs.readFileSync(process.env.WORKFLOW_BUNDLE_PATH as string, 'utf8'),
    sourceMap: fs.readFileSync(process.env.WORKFLOW_SOURCE_MAP_PATH as string, 'utf8'),
  };
  const worker = await startWorker({ config, orm, workflowBundle });
  const stop = () => void worker.stop();
  process.once('SIGINT', stop).once('SIGTERM', stop);
  await worker.done;
  await orm.close();
})().catch((error) => fatal('Worker failed', error));
