/**
 * The test card 4000 0000 0000 0341 (Stripe's "attach OK, charge fails"): its zero-amount verification approves,
 * so it is saved, and every charge of it declines as do not honour — on every provider, so a renewal that fails
 * (dunning) can be produced with nothing but a saved card.
 */
import { expect } from 'chai';
import { api } from '../helpers/http';
import { createTenant } from '../helpers/factories';
import { cascade, charge } from '../helpers/transactions';
import { CARDS, createCustomer, mintToken, openSession, publicHeaders, withEnrolmentToken } from '../helpers/vault';

describe('test card 4000 0000 0000 0341: saves and verifies, declines every charge', () => {
  for (const slug of ['provider_a', 'provider_d']) {
    it(`${slug}: the card is verified and saved, then a charge of the saved card fails as a soft decline`, async () => {
      const tenant = await createTenant();
      await cascade(tenant, [slug]);
      const customerId = await createCustomer(tenant);
      const session = await openSession(tenant);
      const token = await mintToken(tenant, session, CARDS.declinesCharges);
      const enrolled = await api.post(`/sessions/${session.sessionId}/payment-instruments`, {
        headers: publicHeaders(tenant.merchant_public_key),
        body: await withEnrolmentToken(tenant, { tokenId: token.tokenId, customerId, currency: 'USD' }),
      });
      expect(enrolled.status, enrolled.text).to.equal(201);
      expect(enrolled.body, enrolled.text).to.include({ verified: true, status: 'active', last4: '0341' });

      for (const amount of [1500, 100]) {
        const res = await charge(tenant, {
          payment_method: 'credit_card',
          charge_type: 'payment',
          country: 'US',
          amount,
          currency: 'USD',
          customer_id: customerId,
          payment_instrument_id: enrolled.body.paymentInstrumentId,
        });
        expect(res.status, res.text).to.equal(201);
        expect(res.body.data.status, res.text).to.equal('failed');
        expect(res.body.data.timeline.at(-1).error_category, res.text).to.equal('soft_decline');
      }
    });
  }
});
