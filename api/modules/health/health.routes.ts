import { Type } from '@sinclair/typebox';
import { defineRoute } from '../../http/define-route';
import { healthChecks, runChecks } from './health.service';

const CheckSchema = Type.Object({
  status: Type.Union([Type.Literal('up'), Type.Literal('down')]),
  message: Type.Optional(Type.String()),
});
const Checks = Type.Record(Type.String(), CheckSchema);
const HealthReportSchema = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('error')]),
  info: Type.Union([Checks, Type.Null()]),
  error: Type.Union([Checks, Type.Null()]),
  details: Checks,
});

const responses = { 200: HealthReportSchema, 503: HealthReportSchema };
const statusOf = (report: { status: string }) => (report.status === 'ok' ? 200 : 503);

export const healthRoutes = [
  defineRoute({
    method: 'get',
    path: '/health',
    alsoAt: ['/health'],
    summary: 'Full check of the process and its dependencies (PostgreSQL, Temporal, workers)',
    tags: ['Health'],
    auth: 'none',
    envelope: 'bare',
    responses,
    async handler({ deps, em }) {
      const { database, temporal, worker } = healthChecks(deps, em);
      const report = await runChecks({ process: async () => {}, database, temporal, worker });
      return { status: statusOf(report), data: report };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/health/live',
    alsoAt: ['/health/live'],
    summary: 'Liveness: the process is running and can answer',
    tags: ['Health'],
    auth: 'none',
    envelope: 'bare',
    responses,
    async handler() {
      const report = await runChecks({ process: async () => {} });
      return { status: statusOf(report), data: report };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/health/ready',
    alsoAt: ['/health/ready'],
    summary: 'Readiness: database and Temporal reachable and a worker polling the task queue',
    tags: ['Health'],
    auth: 'none',
    envelope: 'bare',
    responses,
    async handler({ deps, em }) {
      const report = await runChecks(healthChecks(deps, em));
      return { status: statusOf(report), data: report };
    },
  }),
];
