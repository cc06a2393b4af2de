/**
 * The signing secret is shown by create and rotate-secret only: never by reads or updates, never stored in
 * plaintext anywhere in the database, and never in Temporal history (nor is the event payload).
 */
import { expect } from 'chai';
import { api } from '../helpers/http';
import { createTenant } from '../helpers/factories';
import { stack } from '../helpers/stack';
import {
  configsPath,
  historyText,
  recordTestEvent,
  startReceiver,
  verifyStandardWebhook,
  waitUntil,
} from '../helpers/webhooks';
import { deliveryWorkflowId } from '../../workflows/webhook-delivery.shared';

/** Every row of every table, as text, that contains `needle`. */
async function rowsContaining(needle: string): Promise<string[]> {
  const em = stack().orm.em.fork();
  const tables = await em.execute<{ table_name: string }[]>(
    `select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'`,
  );
  const found: string[] = [];
  for (const { table_name: table } of tables) {
    const [{ count }] = await em.execute<{ count: string }[]>(
      `select count(*) as count from "${table}" t where t::text like ?`,
      [`%${needle}%`],
    );
    if (Number(count) > 0) found.push(table);
  }
  return found;
}

describe('Webhook signing secrets', () => {
  it('appear only in the create and rotate responses; not in reads, the database or workflow history', async function () {
    this.timeout(60_000);
    const tenant = await createTenant();
    const receiver = await startReceiver();
    try {
      const created = await api.post(configsPath(tenant.merchant_id), {
        key: tenant.merchant_secret_key,
        body: { url: receiver.url('/hook') },
        headers: { 'idempotency-key': `secret-${Date.now()}` },
      });
      const config = created.body;
      const path = `${configsPath(tenant.merchant_id)}/${config.id}`;
      const rotated = (
        await api.post(`/merchants/${tenant.merchant_id}/webhooks/${config.id}/rotate-secret`, {
          key: tenant.merchant_secret_key,
        })
      ).body;
      const secrets = [config.secret as string, rotated.secret as string];
      // The key material itself, in the forms it could be stored or leaked in.
      const needles = secrets.flatMap((secret) => [
        secret.slice('whsec_'.length),
        Buffer.from(secret.slice(6), 'base64').toString('hex'),
      ]);

      const reads = [
        await api.get(path, { key: tenant.merchant_secret_key }),
        await api.get(configsPath(tenant.merchant_id), { key: tenant.merchant_secret_key }),
        await api.patch(path, { key: tenant.merchant_secret_key, body: { description: 'checked' } }),
        await api.get(`/merchants/${tenant.merchant_id}/webhook-deliveries`, { key: tenant.merchant_secret_key }),
      ];
      for (const res of reads) for (const needle of needles) expect(res.text).not.to.include(needle);

      const marker = `payload-marker-${Date.now()}`;
      // The first attempt fails, so the delivery workflow (its history is checked below) also holds a retry.
      receiver.respond('/hook', (_request, count) => ({ status: count === 1 ? 503 : 200 }));
      const event = await recordTestEvent(tenant, 'transaction.authorized', { id: 'tx_secret', note: marker });
      const [request] = await receiver.waitFor((all) => all.length >= 1);
      expect(verifyStandardWebhook(rotated.secret, request.headers, request.body)).to.equal(true);

      for (const needle of needles) expect(await rowsContaining(needle), needle).to.deep.equal([]);

      const client = stack().api.deps.temporal.client;
      const delivery = client.workflow.getHandle(deliveryWorkflowId(event.id, config.id));
      await waitUntil(
        async () => (await delivery.describe().catch(() => undefined))?.status.name === 'COMPLETED',
        30_000,
        'delivery workflow completed',
      );
      const history = historyText(await delivery.fetchHistory());
      // The search is real: the ids the workflow does carry are found.
      expect(history).to.include(event.id).and.include(config.id);
      for (const needle of [...needles, ...secrets, marker]) expect(history).not.to.include(needle);
    } finally {
      await receiver.close();
    }
  });
});
