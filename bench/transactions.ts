/**
 * POST /transactions scenarios for `npm run bench`: a charge approved on the first connector (1 attempt) and a
 * cascade of two soft declines then an approval (3 attempts). Each request runs the whole charge workflow
 * through Temporal, the worker and the sandbox PSP; the API answers once the workflow has decided (201).
 * The card is a saved payment instrument, so one card serves every request (a card token is single-use).
 */
import { randomUUID } from 'node:crypto';
import type autocannon from 'autocannon';
import { createTenant, type Tenant } from '../test/helpers/factories';
import { cascade, override } from '../test/helpers/transactions';
import { createCustomer, saveCard } from '../test/helpers/vault';
import { UNIQUE } from './processes/load-generator';

export interface TransactionScenario {
  name: string;
  expectedStatus: number;
  options: autocannon.Options;
}

/** The one charge every bench scenario and probe sends: USD 15.00 on a saved card. */
export const benchChargeBody = (paymentInstrumentId: string) => ({
  payment_method: 'credit_card',
  charge_type: 'payment',
  country: 'US',
  amount: 1500,
  currency: 'USD',
  payment_instrument_id: paymentInstrumentId,
});

async function chargeScenario(apiUrl: string, name: string, tenant: Tenant): Promise<TransactionScenario> {
  const instrument = await saveCard(tenant, await createCustomer(tenant));
  const body = JSON.stringify(benchChargeBody(instrument.paymentInstrumentId ?? instrument.id));
  return {
    name,
    expectedStatus: 201,
    options: {
      url: `${apiUrl}/api/v1/transactions`,
      method: 'POST',
      headers: {
        authorization: `Bearer ${tenant.merchant_secret_key}`,
        'content-type': 'application/json',
        // Every request is a new charge: POST /transactions requires its own Idempotency-Key (the load generator
        // makes UNIQUE a number of each request's own).
        'idempotency-key': `bench-${randomUUID().slice(0, 8)}-${UNIQUE}`,
      },
      body,
    },
  };
}

export async function transactionScenarios(apiUrl: string): Promise<TransactionScenario[]> {
  const single = await createTenant();
  await cascade(single, ['provider_a']);

  // Two soft declines (sandbox overrides without a count last until deleted), then the third connector approves.
  const cascading = await createTenant();
  const connectors = await cascade(cascading, ['provider_a', 'provider_a', 'provider_a']);
  await override(connectors[0], 'do_not_honor');
  await override(connectors[1], 'insufficient_funds');

  return [
    await chargeScenario(apiUrl, 'POST /transactions (1 attempt, approved)', single),
    await chargeScenario(apiUrl, 'POST /transactions (3 attempts: 2 soft declines, approved)', cascading),
  ];
}
