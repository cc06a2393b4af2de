/**
 * The worker as a process of its own, for the chaos part (SIGKILLed and restarted dozens of times): what
 * `node --import tsx worker/main.ts` runs (runWorkerProcess, which waits for PostgreSQL and Temporal at start as a
 * production worker does), except that it loads the workflow bundle the test built once (WORKFLOW_BUNDLE_PATH,
 * WORKFLOW_SOURCE_MAP_PATH) instead of bundling again on every start, which on this 2-core machine costs more than
 * the chaos itself. It exits only on a fatal error, and logs why first (the chaos report quotes that line).
 */
import fs from 'node:fs';
import { runWorkerProcess } from '../../../worker/main';

runWorkerProcess({
  workflowBundle: {
    code: fs.readFileSync(process.env.WORKFLOW_BUNDLE_PATH as string, 'utf8'),
    sourceMap: fs.readFileSync(process.env.WORKFLOW_SOURCE_MAP_PATH as string, 'utf8'),
  },
});
