/**
 * Merchant sign-in when one e-mail has accounts in several organizations: the person chooses which to enter after
 * the password, instead of landing in the first account whose password matches.
 */
import { expect } from 'chai';
import { api } from '../helpers/http';
import { createTenant, uniqueEmail } from '../helpers/factories';
import { expectError } from '../helpers/envelope';
import { createMerchantUser } from '../helpers/dashboard';

async function twoAccounts() {
  const first = await createTenant();
  const second = await createTenant();
  const email = uniqueEmail('several');
  const a = await createMerchantUser(first.organization_id, [first.merchant_id], { email });
  const b = await createMerchantUser(second.organization_id, [second.merchant_id], { email });
  return { first, second, a, b, email, password: a.password };
}

describe('Merchant sign-in with one e-mail in several organizations', () => {
  it('answers the accounts to choose from (organization and merchants), and no tokens, when the password matches several', async () => {
    const { first, second, a, b, email, password } = await twoAccounts();
    const res = await api.post('/auth/merchant/login', { body: { email, password } });
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.have.all.keys(['choose_account']);
    const accounts = res.body.choose_account as any[];
    expect(accounts.map((account) => account.account_id).sort()).to.deep.equal([a.id, b.id].sort());
    const ofFirst = accounts.find((account) => account.account_id === a.id);
    expect(ofFirst).to.have.all.keys(['account_id', 'organization_id', 'organization_name', 'merchants']);
    expect(ofFirst.organization_id).to.equal(first.organization_id);
    expect(ofFirst.merchants.map((m: any) => m.merchant_id)).to.deep.equal([first.merchant_id]);
    expect(ofFirst.merchants[0]).to.have.all.keys(['merchant_id', 'merchant_name']);
    const ofSecond = accounts.find((account) => account.account_id === b.id);
    expect(ofSecond.merchants.map((m: any) => m.merchant_id)).to.deep.equal([second.merchant_id]);
  });

  it('signs in to the chosen account when the login names it with account_id', async () => {
    const { second, b, email, password } = await twoAccounts();
    const res = await api.post('/auth/merchant/login', { body: { email, password, account_id: b.id } });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.user.id).to.equal(b.id);
    expect(res.body.user.merchants.map((m: any) => m.merchant_id)).to.deep.equal([second.merchant_id]);
    expect(res.body.access_token).to.be.a('string');
  });

  it('refuses an account_id that is not an account of this e-mail and password with the usual 401', async () => {
    const { email, password } = await twoAccounts();
    const other = await createTenant();
    const stranger = await createMerchantUser(other.organization_id, [other.merchant_id]);
    const res = await api.post('/auth/merchant/login', { body: { email, password, account_id: stranger.id } });
    expectError(res, 401, 'authentication_error');
    expect(res.body.error.message).to.equal('The e-mail or password is incorrect');
  });

  it('a single account signs in at once, as before (account_id optional)', async () => {
    const tenant = await createTenant();
    const user = await createMerchantUser(tenant.organization_id, [tenant.merchant_id]);
    const res = await api.post('/auth/merchant/login', { body: { email: user.email, password: user.password } });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.user.id).to.equal(user.id);
  });
});
