/**
 * api/app.ts: what the app serves besides its JSON routes (provider webhooks, the 3-D Secure return, the SDK and
 * hosted checkout, the Dashboard app, the API reference) is handed over by path alone, in one mount table, so a
 * request to an API route (a charge among them) runs none of those middlewares' code.
 */
import { expect } from 'chai';
import { mountOf } from '../../api/app';

describe('the app mounts by path prefix', () => {
  it('hands each path served outside the JSON routes to its one mount', () => {
    expect(mountOf('/api/v1/webhooks/inbound/conn_4Tg7Yu1Ws3Ex')).to.equal('provider webhooks');
    expect(mountOf('/api/v1/transactions/tx_7Hq2Lm9Xc4Vb1Nz8/three-ds/return')).to.equal('3-D Secure return');
    expect(mountOf('/api/v1/renewal-authentication')).to.equal('3-D Secure return');
    expect(mountOf('/sdk/v1/switchyard.js')).to.equal('browser assets');
    expect(mountOf('/checkout/cks_3fJ9sLq1WcZ7')).to.equal('browser assets');
    expect(mountOf('/checkout/assets/checkout.js')).to.equal('browser assets');
    expect(mountOf('/api/v1/tokens')).to.equal('browser assets');
    expect(mountOf('/api/v1/sessions')).to.equal('browser assets');
    expect(mountOf('/api/v1/sessions/bs_1/payment-instruments')).to.equal('browser assets');
    expect(mountOf('/dashboard')).to.equal('dashboard app');
    expect(mountOf('/dashboard/assets/index-abc.js')).to.equal('dashboard app');
    expect(mountOf('/docs')).to.equal('api reference');
    expect(mountOf('/docs/assets/redoc.standalone.js')).to.equal('api reference');
  });

  it('hands an API route (a charge, a read of it, a probe) to none of them', () => {
    for (const path of [
      '/api/v1/transactions',
      '/api/v1/transactions/tx_7Hq2Lm9Xc4Vb1Nz8',
      '/api/v1/transactions/tx_7Hq2Lm9Xc4Vb1Nz8/capture',
      '/api/v1/tokens/tok_1',
      '/api/v1/health/live',
      '/health/ready',
      '/dashboards',
      '/docsearch',
    ]) {
      expect(mountOf(path), path).to.equal(undefined);
    }
  });
});
