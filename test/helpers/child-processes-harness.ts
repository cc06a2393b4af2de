/**
 * A stand-in harness for test/harness/child-processes.test.ts, run as a process of its own: starts the two servers
 * that used to be left behind (a Temporal dev server and Mailpit) the way test/helpers/stack.ts does, guards them,
 * prints `ready <json of its descendants>` and waits to be signalled or killed.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTemporalForTests } from '../../scripts/lib/temporal-dev-server';
import { startMailCatcher } from '../../scripts/lib/mailpit';
import { freePort } from './ports';
import { descendantsOf, guardChildren, recordChildren } from './child-processes';

void (async () => {
  guardChildren();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchyard-harness-children-'));
  await Promise.all([
    startTemporalForTests(),
    startMailCatcher({ dataDir, smtpPort: await freePort(), uiPort: await freePort() }),
  ]);
  recordChildren();
  console.log(`ready ${JSON.stringify(descendantsOf(process.pid))}`);
  setInterval(() => undefined, 60_000);
})();
