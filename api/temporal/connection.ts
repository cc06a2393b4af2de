/**
 * The API's Temporal connection, the readiness probes and the one "Temporal unreachable → 502" mapping. The files
 * beside this one are the API's only way to Temporal: every workflow start, start-or-join, signal, update and wait
 * the API makes is a typed function there, imported from the file of its area (test/unit/architecture.test.ts).
 */
import { Client, Connection, isGrpcServiceError, ServiceError, type ConnectionLike } from '@temporalio/client';
import { ApiError } from '../../domain/platform/errors';
import { TASK_QUEUES } from '../../workflows/definitions';
import { temporal as proto } from '@temporalio/proto';
import { temporalClientInterceptors } from '../../domain/platform/tracing';

/** The in-process worker's connection (a NativeConnection), handed to the API by `npm start`. */
export type WorkerConnection = ConnectionLike;

export interface TemporalDeps {
  connection: Connection;
  client: Client;
  /**
   * A client on the in-process worker's native connection (`npm start`), which starts charges eagerly: the server
   * hands the first workflow task straight back to that worker in the start response (no matching round trip).
   * The SDK supports eager start only on a connection shared with a worker; absent when the API runs alone.
   */
  eager?: Client;
}

export async function connectTemporal(
  address: string,
  namespace: string,
  workerConnection?: WorkerConnection,
): Promise<TemporalDeps> {
  const connection = await Connection.connect({ address });
  // While tracing runs, workflow starts and signals carry the request's trace in their headers (the worker continues
  // it); while it is off the list is empty and a start pays nothing for tracing.
  const interceptors = { workflow: temporalClientInterceptors };
  return {
    connection,
    client: new Client({ connection, namespace, interceptors }),
    ...(workerConnection ? { eager: new Client({ connection: workerConnection, namespace, interceptors }) } : {}),
  };
}

// ── Health (readiness) ───────────────────────────────────────────────────────────────────────────────────────

/** Throws unless the Temporal frontend answers before the deadline (epoch ms). */
export async function pingTemporal({ connection, client }: TemporalDeps, deadline: number): Promise<void> {
  await connection.withDeadline(deadline, () => client.workflowService.getSystemInfo({}));
}

export type Poller = {
  lastAccessTime?: { seconds?: number | { toNumber(): number } | null; nanos?: number | null } | null;
};

/** The workflow pollers Temporal lists on each of our task queues (it keeps a dead worker's for minutes). */
export async function workflowPollers(
  { connection, client }: TemporalDeps,
  namespace: string,
  deadline: number,
): Promise<Record<string, Poller[]>> {
  const queues = Object.values(TASK_QUEUES);
  const responses = await Promise.all(
    queues.map((name) =>
      connection.withDeadline(deadline, () =>
        client.workflowService.describeTaskQueue({
          namespace,
          taskQueue: { name },
          taskQueueType: proto.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
        }),
      ),
    ),
  );
  return Object.fromEntries(queues.map((name, i) => [name, responses[i].pollers]));
}

/** gRPC statuses meaning the Temporal frontend could not be reached in time (after the client's own retries). */
const UNREACHABLE = new Set([14 /* UNAVAILABLE */, 4 /* DEADLINE_EXCEEDED */]);

/**
 * Temporal unreachable while starting or signalling a workflow: the request did not happen (its database
 * transaction rolls back), so it is a retryable 502 like any other unreachable dependency, not an internal error.
 * The request-context middleware applies it to anything a handler throws.
 */
export function fromUnreachableTemporal(error: unknown): ApiError | undefined {
  const grpc = error instanceof ServiceError ? error.cause : error;
  if (!isGrpcServiceError(grpc) || !UNREACHABLE.has(grpc.code)) return undefined;
  return new ApiError(
    502,
    'external_service_error',
    'WORKFLOW_SERVICE_UNAVAILABLE',
    'The workflow service is unreachable; retry shortly',
  );
}
