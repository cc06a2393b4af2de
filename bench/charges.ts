/**
 * Charges for `npm run bench`: the POST /transactions scenarios (bench/transactions.ts) at BENCH_CONNECTIONS
 * (throughput) and with one client (a charge's own latency, and what each extra cascade attempt adds).
 */
import { httpSuite } from './harness';
import { transactionScenarios } from './transactions';

export const chargesSuite = httpSuite('charges', async (ctx) => {
  // A charge takes up to seconds on a busy machine: a quick run still measures a few of them.
  const [single, cascading] = (await transactionScenarios(ctx.apiUrl)).map((scenario) => ({
    ...scenario,
    minDuration: 5,
  }));
  return [
    { ...single, figure: 'charge_single' },
    { ...cascading, figure: 'charge_cascade' },
    { ...single, name: `${single.name}, one client`, connections: 1, figure: 'charge_single_1c' },
    { ...cascading, name: `${cascading.name}, one client`, connections: 1, figure: 'charge_cascade_1c' },
  ];
});
