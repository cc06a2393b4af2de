/**
 * Charges for `npm run bench`: the POST /transactions scenarios (bench/transactions.ts) at BENCH_CONNECTIONS
 * (throughput) and with one client (a charge's own latency, and what each extra cascade attempt adds).
 */
import { httpSuite } from './harness';
import { transactionScenarios } from './transactions';

export const chargesSuite = httpSuite('charges', async (ctx) => {
  // Counted charges, not a duration (see HttpScenario.amount): about BENCH_DURATION seconds' worth on an idle machine.
  const [single, cascading] = await transactionScenarios(ctx.apiUrl);
  const concurrent = ctx.connections * ctx.duration;
  const alone = 2 * ctx.duration;
  return [
    { ...single, figure: 'charge_single', amount: concurrent },
    { ...cascading, figure: 'charge_cascade', amount: concurrent },
    { ...single, name: `${single.name}, one client`, connections: 1, figure: 'charge_single_1c', amount: alone },
    {
      ...cascading,
      name: `${cascading.name}, one client`,
      connections: 1,
      figure: 'charge_cascade_1c',
      amount: alone,
    },
  ];
});
