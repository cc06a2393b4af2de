/**
 * Request logs never make a request wait on a write(2), and do not cost one write per line: the default
 * destination is asynchronous and batched, and a quiet process still gets its lines out within LOG_BATCH_MS.
 */
import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { createLogger, flushLogger, LOG_BATCH_BYTES, LOG_BATCH_MS, logDestination } from '../../domain/platform/logger';

describe('logger', () => {
  it('writes to stdout asynchronously (pino destination not sync) and can be flushed', async () => {
    const logger = createLogger('silent');
    const stream = (logger as unknown as Record<symbol, { sync?: boolean; minLength?: number }>)[
      pino.symbols.streamSym
    ];
    expect([stream.sync, stream.minLength]).to.deep.equal([false, LOG_BATCH_BYTES]);
    await flushLogger(logger);
  });

  it('batches lines, and a lone line still reaches the file within the batch interval', async function () {
    this.timeout(10_000);
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'switchyard-log-')), 'out.log');
    const logger = createLogger('info', logDestination(file));
    await new Promise((resolve) => setTimeout(resolve, 100)); // the file is opened asynchronously
    logger.info({ n: 1 }, 'lone line');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(fs.readFileSync(file, 'utf8'), 'held in the batch at first').to.equal('');
    await new Promise((resolve) => setTimeout(resolve, LOG_BATCH_MS + 500));
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).to.include({ msg: 'lone line', n: 1 });
  });
});
