/**
 * The cheapest OTLP collector there is, for the telemetry bench: a process of its own that accepts
 * `POST /v1/traces`, reads the body and throws it away. Exporting to it costs the API what exporting costs the API
 * (building, serialising and posting its batches) and nothing of what a real collector's own CPU takes from the
 * two cores, so "on, to the sink" against "on, to Jaeger" separates the two.
 */
import { fork } from 'node:child_process';
import { createServer } from 'node:http';

export interface RunningSink {
  /** What OTEL_EXPORTER_OTLP_ENDPOINT should be. */
  otlpEndpoint: string;
  pid: number;
  /** Exports (POSTs) and bytes received so far. */
  received(): Promise<{ exports: number; bytes: number }>;
  stop(): Promise<void>;
}

export async function startOtlpSink(): Promise<RunningSink> {
  const child = fork(__filename, [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const next = <T>() => new Promise<T>((resolve) => child.once('message', (message) => resolve(message as T)));
  const { url } = await next<{ url: string }>();
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    otlpEndpoint: url,
    pid: child.pid!,
    received() {
      const answer = next<{ exports: number; bytes: number }>();
      child.send('received');
      return answer;
    },
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

function serve(): void {
  const received = { exports: 0, bytes: 0 };
  const server = createServer((request, response) => {
    request.on('data', (chunk: Buffer) => (received.bytes += chunk.length));
    request.on('end', () => {
      if (request.method !== 'POST' || request.url !== '/v1/traces') return void response.writeHead(404).end();
      received.exports += 1;
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    process.send?.({ url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}` });
  });
  process.on('message', () => process.send?.(received));
  process.once('SIGTERM', () => process.exit(0)).once('disconnect', () => process.exit(0));
}

if (require.main === module) serve();
