/** Request logs never make a request wait on a write(2) (issue 15): the default destination is asynchronous. */
import { expect } from 'chai';
import pino from 'pino';
import { createLogger, flushLogger } from '../../domain/platform/logger';

describe('logger', () => {
  it('writes to stdout asynchronously (pino destination not sync) and can be flushed', async () => {
    const logger = createLogger('silent');
    const stream = (logger as unknown as Record<symbol, { sync?: boolean }>)[pino.symbols.streamSym];
    expect(stream.sync).to.equal(false);
    await flushLogger(logger);
  });
});
