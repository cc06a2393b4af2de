/** A malformed API key's 401 names the accepted key prefixes (and never echoes the key). */
import { expect } from 'chai';
import { api } from '../helpers/http';
import { expectError } from '../helpers/envelope';

describe('API keys: the 401 for a malformed key hints at the accepted prefixes', () => {
  for (const key of ['sk_test_4eC39HqLyjWDarjtT1zdp7dc', 'pk_live_mer_short', 'rk_live_abc123']) {
    it(`names sk_live_mer_, sk_live_org_ and pk_live_mer_ for ${key.slice(0, 8)}… without echoing it`, async () => {
      const res = await api.get('/customers', { headers: { authorization: `Bearer ${key}` } });
      expectError(res, 401, 'authentication_error');
      const message = res.body.error.message as string;
      expect(message).to.match(/malformed/);
      for (const prefix of ['sk_live_mer_', 'sk_live_org_', 'pk_live_mer_']) expect(message).to.include(prefix);
      expect(res.text).not.to.include(key);
    });
  }
});
