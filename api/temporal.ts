/** The API's Temporal connection (typed starters and signals for workflows are added here as they land). */
import { Client, Connection } from '@temporalio/client';

export async function connectTemporal(address: string, namespace: string): Promise<{ connection: Connection; client: Client }> {
  const connection = await Connection.connect({ address });
  return { connection, client: new Client({ connection, namespace }) };
}
