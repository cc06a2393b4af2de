/**
 * Card enrolment holds no database transaction (and no token row lock) while its verification workflow runs: a
 * second use of the token is refused at once, a verification that gets no answer in time releases the token, and
 * the retry finds the same verification instead of verifying the card twice.
 */
import { expect } from 'chai';
import { startApi, type RunningApi } from '../../api/server';
import { api } from '../helpers/http';
import { createTenant } from '../helpers/factories';
import { expectError } from '../helpers/envelope';
import { rows } from '../helpers/db';
import { ledger } from '../helpers/sandbox';
import { stack, withWorkerDown } from '../helpers/stack';
import {
  cardConnector,
  createCustomer,
  mintToken,
  openSession,
  publicHeaders,
  withEnrolmentToken,
} from '../helpers/vault';

describe('Card enrolment while its verification waits on a workflow', () => {
  let app: RunningApi;
  before(async () => {
    app = await startApi({ ...stack().config, workflowWaitMs: 2_000 }, 0);
  });
  after(async () => {
    await app?.stop();
  });

  it('card enrolment holds no token row lock while it verifies: a second use is refused at once, no answer in time releases the token, and the retry verifies once', async function () {
    this.timeout(60_000);
    const tenant = await createTenant();
    const connector = await cardConnector(tenant, 'provider_a');
    const profile = await api.post(`/merchants/${tenant.merchant_id}/routing-profiles`, {
      key: tenant.merchant_secret_key,
      body: { name: 'Cards', is_active: true, payment_method: '*', default_merchant_connector_id: connector.id },
    });
    expect(profile.status, profile.text).to.equal(201);
    const customerId = await createCustomer(tenant);
    const session = await openSession(tenant);
    const token = await mintToken(tenant, session);
    // The retry carries the same enrolment token: spent on this verification, it lets the same one through.
    const body = await withEnrolmentToken(tenant, { tokenId: token.tokenId, customerId, currency: 'USD' });
    const enrol = () =>
      api.post(`/sessions/${session.sessionId}/payment-instruments`, {
        headers: publicHeaders(tenant.merchant_public_key),
        body,
        baseUrl: app.url,
      });

    await withWorkerDown(async () => {
      const first = enrol();
      const query = `WorkflowType = 'cardVerificationWorkflow' AND MerchantId = '${tenant.merchant_id}'`;
      for (let i = 0; i < 100 && (await app.deps.temporal.client.workflow.count(query)).count === 0; i += 1) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      // Nobody holds the token's row while the verification waits, and the token is claimed by it.
      const [locked] = await stack()
        .orm.em.fork()
        .transactional((tx) =>
          tx.execute('select used_by from card_tokens where id = ? for update nowait', [token.tokenId]),
        );
      expect(locked.used_by).to.equal(`card-verification-${token.tokenId}`);
      expectError(await enrol(), 409, 'conflict_error', 'TOKEN_ALREADY_USED');
      expectError(await first, 502, 'external_service_error', 'VERIFICATION_UNAVAILABLE');
    });
    const [released] = await rows('select status, used_by from card_tokens where id = ?', [token.tokenId]);
    expect(released).to.deep.equal({ status: 'active', used_by: null });

    const retried = await enrol();
    expect(retried.status, retried.text).to.equal(201);
    expect(retried.body).to.include({ verified: true, status: 'active' });
    // The sandbox records the verification under the token id (its reference).
    const verifications = (await ledger({ provider: 'provider_a' })).filter(
      (e) => e.reference === token.tokenId && !e.replayed,
    );
    expect(verifications).to.have.length(1);
  });
});
