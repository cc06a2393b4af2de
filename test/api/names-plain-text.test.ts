/**
 * Names people choose (merchant names, member and admin display names) are plain single-line text: control
 * characters (line breaks, tabs, other C0/C1) and bidi overrides are refused with 400 validation_error. Platform
 * mail names the inviter by e-mail address after fixed wording, never opens with chosen text, and shows names
 * as one inert line: rows stored before the rule render safely too.
 */
import { expect } from 'chai';
import { api } from '../helpers/http';
import { createTenant, uniqueEmail, type Tenant } from '../helpers/factories';
import { expectFieldErrors } from '../helpers/envelope';
import { rows } from '../helpers/db';
import { waitForMail } from '../helpers/mail';
import { NEW_PASSWORD, bearer, createMerchantUser, signIn } from '../helpers/dashboard';

const PHISHING =
  'Switchyard Security Team.\n\nACTION REQUIRED: confirm your bank details at https://switchyard-verify.example/login\n\nOriginal message: Ada';
const CONTROL_NAMES = {
  'a line break': 'Ada\nLovelace',
  'a tab': 'Ada\tLovelace',
  'a C1 control': 'Ada\u0085Lovelace',
  'a bidi override': 'Ada \u202Egnp.exe',
};

describe('Names are plain single-line text', function () {
  this.timeout(90_000);
  let tenant: Tenant;
  beforeEach(async () => {
    tenant = await createTenant();
  });

  for (const [what, name] of Object.entries(CONTROL_NAMES)) {
    it(`names are plain single-line text: a merchant name, member name or accepted name with ${what} is 400 validation_error`, async () => {
      const key = tenant.organization_secret_key;
      const merchant = await api.post('/merchants', { key, body: { name, primary_email: uniqueEmail('owner') } });
      expectFieldErrors(merchant, ['name']);
      const owner = await api.post('/merchants', {
        key,
        body: { name: 'Plain Shop', primary_email: uniqueEmail('owner'), primary_name: name },
      });
      expectFieldErrors(owner, ['primary_name']);
      const renamed = await api.patch(`/merchants/${tenant.merchant_id}`, { key, body: { name } });
      expectFieldErrors(renamed, ['name']);
      const member = await api.post(`/merchants/${tenant.merchant_id}/members`, {
        key,
        body: { email: uniqueEmail('member'), name, role: 'viewer' },
      });
      expectFieldErrors(member, ['name']);
      const accepted = await api.post('/auth/merchant/accept-invitation', {
        body: { token: 'x'.repeat(40), password: NEW_PASSWORD, name },
      });
      expectFieldErrors(accepted, ['name']);
      const adminAccepted = await api.post('/invitations/accept', { body: { token: 'x'.repeat(40), name } });
      expectFieldErrors(adminAccepted, ['name']);
    });
  }

  it('names are plain single-line text: an invitation names the inviter by e-mail after fixed wording; a stored multi-line name with a link renders as one inert line', async () => {
    const inviter = await createMerchantUser(tenant.organization_id, [tenant.merchant_id], { role: 'admin' });
    // A name stored before the rule existed: the mail must still render it safely.
    await rows('update merchant_users set name = ? where id = ?', [PHISHING, inviter.id]);
    await rows('update merchants set name = ? where id = ?', [
      'Shop <a href="https://evil.example">\r\nHi',
      tenant.merchant_id,
    ]);
    const { access_token: token } = await signIn('merchant', inviter);
    const email = uniqueEmail('invitee');
    const res = await api.post('/merchant/members', {
      headers: bearer(token as string, { 'x-merchant-id': tenant.merchant_id }),
      body: { email, role: 'viewer' },
    });
    expect(res.status, res.text).to.equal(201);

    const [mail] = await waitForMail(email);
    const lines = mail.text.split(/\r?\n/);
    expect(lines[0]).to.match(/^You are invited to the Switchyard Dashboard/);
    expect(mail.text).to.include(`Invited by ${inviter.email}`);
    expect(mail.subject).to.not.match(/[\r\n]/);
    for (const line of ['ACTION REQUIRED: confirm your bank details', 'Original message: Ada', 'Hi']) {
      expect(
        lines.map((l) => l.trim()),
        `"${line}" alone on a line`,
      ).to.not.include(line);
    }
    expect(lines.filter((l) => l.startsWith('ACTION REQUIRED'))).to.be.empty;
    // Link-looking text inside a name is not a link: defanged, so mail clients do not make it clickable.
    expect(mail.text).to.not.include('https://switchyard-verify.example');
    expect(mail.text).to.not.include('switchyard-verify.example/login');
    expect(mail.text).to.not.include('https://evil.example');
    expect(mail.text).to.include('<a href="https[://]evil[.]example"> Hi');
  });
});
