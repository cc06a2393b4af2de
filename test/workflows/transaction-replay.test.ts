/**
 * Determinism guard: workflow histories replayed against the current workflow code (Worker.runReplayHistories).
 * Two sources: histories recorded in this run (a cascade, its capture, a pix charge and its settlement), and the
 * recorded fixtures in test/workflows/histories/ (written with RECORD_HISTORIES=1) — so a change to transaction.ts or
 * transaction-operation.ts that would break running workflows fails CI. The fixtures were re-recorded when the
 * development-only patched() branches were retired, when the charge workflow took the name transactionWorkflow and
 * when it stopped repeating the search attributes the API's start sets (nothing had been deployed any time); from the first deploy on a change to a
 * running workflow keeps the old path behind patched()/deprecatePatch (docs/architecture.md) and these fixtures
 * stay as they are.
 */
import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { Worker } from '@temporalio/worker';
import { temporal } from '@temporalio/proto';
import type { Client } from '@temporalio/client';
import { connectTemporal } from '../../api/temporal/connection';
import { api } from '../helpers/http';
import { createTenant } from '../helpers/factories';
import { control } from '../helpers/sandbox';
import { stack } from '../helpers/stack';
import {
  cardCharge,
  cardToken,
  cascade,
  charge,
  override,
  providerReferenceOf,
  waitForTransaction,
} from '../helpers/transactions';

const FIXTURES = path.join(__dirname, 'histories');

describe('Charge workflows replay deterministically', () => {
  let client: Client;
  const recorded: Array<{ workflowId: string; name: string; history: any }> = [];

  before(async function () {
    this.timeout(60_000);
    client = (await connectTemporal(stack().config.temporal.address, stack().config.temporal.namespace)).client;
    const tenant = await createTenant();
    const connectors = await cascade(tenant, ['provider_a', 'provider_a']);
    await override(connectors[0], 'do_not_honor', 1);
    const cascaded = (await charge(tenant, cardCharge(await cardToken(tenant), { capture: false }))).body.data;
    const captured = await api.post(`/transactions/${cascaded.id}/capture`, {
      key: tenant.merchant_secret_key,
      body: {},
    });
    expect(captured.status, captured.text).to.equal(200);
    const brl = await createTenant();
    await cascade(brl, ['provider_b']);
    const pix = (
      await charge(brl, { payment_method: 'pix', charge_type: 'payment', country: 'BR', amount: 4990, currency: 'BRL' })
    ).body.data;
    await control('POST', `/payments/${await providerReferenceOf(brl, pix.id)}/settle`);
    await waitForTransaction(brl, pix.id, (t) => t.status === 'authorized');
    const ids = {
      'transaction-cascade': `transaction-${cascaded.id}`,
      'operation-capture': await captureWorkflowIdOf(cascaded.id),
      'transaction-pix': `transaction-${pix.id}`,
      'settlement-pix': `transaction-settlement-${pix.id}`,
    };
    for (const [name, workflowId] of Object.entries(ids)) {
      const handle = client.workflow.getHandle(workflowId);
      await handle.result();
      recorded.push({ workflowId, name, history: await handle.fetchHistory() });
    }
    if (process.env.RECORD_HISTORIES === '1') {
      fs.mkdirSync(FIXTURES, { recursive: true });
      // Binary protobuf: exact, and read back without the JSON converter (whose protobufjs copy differs here).
      for (const { name, history } of recorded) {
        fs.writeFileSync(path.join(FIXTURES, `${name}.pb`), temporal.api.history.v1.History.encode(history).finish());
      }
    }
  });

  /** The capture's workflow, found as an operator finds it: by the transaction's id (visibility is eventual). */
  async function captureWorkflowIdOf(transactionId: string): Promise<string> {
    for (;;) {
      for await (const run of client.workflow.list({
        query: `WorkflowType = 'transactionOperationWorkflow' AND TransactionId = '${transactionId}'`,
      })) {
        return run.workflowId;
      }
    }
  }

  async function replay(histories: Array<{ workflowId: string; history: any }>): Promise<void> {
    const results = Worker.runReplayHistories(
      { workflowBundle: stack().workflowBundle, replayName: 'transaction-replay' },
      histories,
    );
    let count = 0;
    for await (const result of results) {
      expect(result.error, `${result.workflowId}: ${result.error?.message}`).to.equal(undefined);
      count += 1;
    }
    expect(count).to.equal(histories.length);
  }

  it('replays the histories recorded in this run (cascade, its capture, pix pending and its settlement)', async function () {
    this.timeout(30_000);
    await replay(recorded);
  });

  it('replays the committed history fixtures', async function () {
    this.timeout(30_000);
    const files = fs.existsSync(FIXTURES) ? fs.readdirSync(FIXTURES).filter((f) => f.endsWith('.pb')) : [];
    expect(files, 'recorded fixtures in test/workflows/histories').to.not.be.empty;
    await replay(
      files.map((file) => ({
        workflowId: file.replace(/\.pb$/, ''),
        history: temporal.api.history.v1.History.decode(fs.readFileSync(path.join(FIXTURES, file))),
      })),
    );
  });
});
