import { expect } from 'chai';
import { api } from '../helpers/http';
import { stack, withWorkerDown } from '../helpers/stack';
import { startTcpProxy } from '../helpers/tcp-proxy';
import { temporal } from '@temporalio/proto';
import { startApi } from '../../api/server';
import { freshPollers, POLLER_FRESH_MS } from '../../api/modules/health/health.service';
import { TASK_QUEUES } from '../../workflows/definitions';

const HEALTH_PATHS = ['/api/v1/health', '/api/v1/health/live', '/api/v1/health/ready'];

function expectReportShape(body: any): void {
  expect(body).to.have.keys(['status', 'info', 'error', 'details']);
  expect(body).to.not.have.property('success');
  expect(body).to.not.have.property('request_id');
}

describe('Health probes', () => {
  for (const path of HEALTH_PATHS) {
    it(`${path} answers 200 with an ok Health report and no authentication`, async () => {
      const res = await api.get(path);
      expect(res.status).to.equal(200);
      expectReportShape(res.body);
      expect(res.body.status).to.equal('ok');
      expect(res.body.error).to.deep.equal({});
      for (const check of Object.values(res.body.details as Record<string, { status: string }>))
        expect(check.status).to.equal('up');
    });
  }

  it('/health checks the database, Temporal and the worker', async () => {
    const res = await api.get('/api/v1/health');
    expect(res.body.details).to.have.keys(['process', 'database', 'temporal', 'worker']);
  });

  it('/health/ready checks the database, Temporal and a worker polling the task queue', async () => {
    const res = await api.get('/api/v1/health/ready');
    expect(res.body.info).to.have.keys(['database', 'temporal', 'worker']);
  });

  it('is also served outside /api/v1 for orchestrators', async () => {
    const res = await api.get('/health/live');
    expect(res.status).to.equal(200);
    expectReportShape(res.body);
  });

  describe('when the database is down', () => {
    it('/health and /health/ready answer 503 with the database check under error; /health/live stays 200', async function () {
      this.timeout(20_000);
      const { config, databasePort } = stack();
      const proxy = await startTcpProxy(databasePort);
      const databaseUrl = config.databaseUrl.replace(`:${databasePort}/`, `:${proxy.port}/`);
      const app = await startApi({ ...config, databaseUrl }, 0);
      try {
        expect((await api.get('/api/v1/health/ready', { baseUrl: app.url })).status).to.equal(200);
        await proxy.close();
        for (const path of ['/api/v1/health', '/api/v1/health/ready']) {
          const res = await api.get(path, { baseUrl: app.url });
          expect(res.status, path).to.equal(503);
          expectReportShape(res.body);
          expect(res.body.status).to.equal('error');
          expect(res.body.error.database.status).to.equal('down');
          expect(res.body.info.temporal.status).to.equal('up');
          expect(res.text).to.not.include('postgres://');
        }
        expect((await api.get('/api/v1/health/live', { baseUrl: app.url })).status).to.equal(200);
      } finally {
        await app.stop();
      }
    });
  });

  describe('when the worker stops', () => {
    it('its poller, still listed by Temporal, stops being refreshed, so readiness counts no worker once it is 90 s stale', async () => {
      const s = stack();
      const describeQueue = () =>
        s.api.deps.temporal.client.workflowService.describeTaskQueue({
          namespace: s.config.temporal.namespace,
          taskQueue: { name: TASK_QUEUES.payments },
          taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
        });
      expect(freshPollers((await describeQueue()).pollers, Date.now())).to.be.greaterThan(0);
      await withWorkerDown(async () => {
        const stoppedAt = Date.now();
        await new Promise((resolve) => setTimeout(resolve, 2_000));
        const { pollers } = await describeQueue();
        // The dead worker is still listed (a bare count would call it healthy) …
        expect(pollers).to.not.be.empty;
        // … but it is never seen again: 90 s on, none of the listed pollers counts.
        expect(freshPollers(pollers, stoppedAt + POLLER_FRESH_MS + 1_000)).to.equal(0);
      });
      const ready = await api.get('/api/v1/health/ready');
      expect(ready.status, ready.text).to.equal(200);
    });
  });
});
