/**
 * api/http/request-context.ts: a stop drains the requests still running — those that arrive while it waits too — and says
 * when its time ran out with some still running; once closing, every answer closes its connection.
 */
import { expect } from 'chai';
import type { Context } from 'koa';
import { inFlightRequests } from '../../api/http/request-context';

function deferred(): { promise: Promise<void>; resolve(): void; reject(error: Error): void } {
  let resolve!: () => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<void>((yes, no) => ((resolve = yes), (reject = no)));
  return { promise, resolve, reject };
}

const headers = () => {
  const set: Record<string, string> = {};
  return { ctx: { set: (name: string, value: string) => (set[name] = value) } as unknown as Context, set };
};

describe('in-flight requests', () => {
  it('drains once no request runs, counting those that arrived while it waited', async () => {
    const inFlight = inFlightRequests();
    const first = deferred();
    const second = deferred();
    const running = [inFlight.middleware(headers().ctx, () => first.promise)];
    expect(inFlight.count).to.equal(1);
    let drained: boolean | undefined;
    const draining = inFlight.drain(10_000).then((result) => (drained = result));
    running.push(inFlight.middleware(headers().ctx, () => second.promise));
    first.resolve();
    await running[0];
    expect(drained).to.equal(undefined);
    expect(inFlight.count).to.equal(1);
    second.resolve();
    await draining;
    expect(drained).to.equal(true);
    expect(inFlight.count).to.equal(0);
  });

  it('counts a failed request as finished, and passes its failure on', async () => {
    const inFlight = inFlightRequests();
    const failing = deferred();
    const request = inFlight.middleware(headers().ctx, () => failing.promise);
    failing.reject(new Error('handler failed'));
    let failure: unknown;
    await request.catch((error: unknown) => (failure = error));
    expect((failure as Error).message).to.equal('handler failed');
    expect(inFlight.count).to.equal(0);
    expect(await inFlight.drain(10_000)).to.equal(true);
  });

  it('reports false when its time runs out with a request still running', async () => {
    const inFlight = inFlightRequests();
    const hanging = deferred();
    const request = inFlight.middleware(headers().ctx, () => hanging.promise);
    expect(await inFlight.drain(1)).to.equal(false);
    expect(inFlight.count).to.equal(1);
    hanging.resolve();
    await request;
  });

  it('closes every connection it answers once closing', async () => {
    const inFlight = inFlightRequests();
    const before = headers();
    await inFlight.middleware(before.ctx, async () => undefined);
    inFlight.closing();
    const after = headers();
    await inFlight.middleware(after.ctx, async () => undefined);
    expect(before.set).to.deep.equal({});
    expect(after.set).to.deep.equal({ Connection: 'close' });
  });
});
