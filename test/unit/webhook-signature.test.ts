/** Standard Webhooks signing (domain/webhooks/webhooks.outbound.ts) against the specification's published example. */
import { expect } from 'chai';
import { generateSigningSecret, signPayload } from '../../domain/webhooks/webhooks.outbound';

describe('signPayload', () => {
  it('reproduces the Standard Webhooks / Svix reference signature', () => {
    const headers = signPayload(
      ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'],
      'msg_p5jXN8AQM9LWM0D4loKWxJek',
      1614265330,
      '{"test": 2432232314}',
    );
    expect(headers).to.deep.equal({
      'webhook-id': 'msg_p5jXN8AQM9LWM0D4loKWxJek',
      'webhook-timestamp': '1614265330',
      'webhook-signature': 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    });
  });

  it('space-separates one signature per secret, the current one first', () => {
    const [current, previous] = [generateSigningSecret(), generateSigningSecret()];
    const both = signPayload([current, previous], 'evt_1', 1, '{}')['webhook-signature'].split(' ');
    expect(both).to.have.length(2);
    expect(both[0]).to.equal(signPayload([current], 'evt_1', 1, '{}')['webhook-signature']);
    expect(both[1]).to.equal(signPayload([previous], 'evt_1', 1, '{}')['webhook-signature']);
  });

  it('refuses a secret without the whsec_ prefix', () => {
    expect(() => signPayload(['MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'], 'evt_1', 1, '{}')).to.throw(/whsec_/);
  });
});
