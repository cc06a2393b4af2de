/**
 * Deleting a connector never strands money: while a charge it made still has a hold to capture or void, or a move
 * awaiting the provider's word, the delete is refused; once it is gone, a capture, void or refund of its charges is
 * refused with CONNECTOR_DELETED at once (nothing is recorded, nothing waits on a provider that cannot be asked).
 */
import { expect } from 'chai';
import { api } from '../helpers/http';
import { createTenant, type Tenant } from '../helpers/factories';
import { expectError, expectWrapped } from '../helpers/envelope';
import { connectorBody, connectorsPath } from '../helpers/connectors';
import { cardCharge, cardToken, cascade, charge, type CascadeConnector } from '../helpers/transactions';
import { rows } from '../helpers/db';

describe('Deleting a connector whose charges still move money', () => {
  let tenant: Tenant;
  let used: CascadeConnector;

  beforeEach(async () => {
    tenant = await createTenant();
    [used] = await cascade(tenant, ['provider_a']);
  });

  /** Routing moves to a fresh connector, so `used` is referenced by nothing but its past charges. */
  async function routeElsewhere(): Promise<void> {
    const created = await api.post(connectorsPath(tenant.merchant_id), {
      key: tenant.merchant_secret_key,
      body: connectorBody('provider_a', { name: 'Replacement' }),
    });
    expect(created.status, created.text).to.equal(201);
    const [profile] = await rows('select id from routing_profiles where merchant_id = ?', [tenant.merchant_id]);
    const patched = await api.patch(`/merchants/${tenant.merchant_id}/routing-profiles/${profile.id}`, {
      key: tenant.merchant_secret_key,
      body: { default_merchant_connector_id: created.body.id },
    });
    expect(patched.status, patched.text).to.equal(200);
  }

  const deleteUsed = () =>
    api.delete(`${connectorsPath(tenant.merchant_id)}/${used.id}`, { key: tenant.merchant_secret_key });
  const post = (path: string) => api.post(path, { key: tenant.merchant_secret_key, body: {} });

  it('refuses the delete with CONNECTOR_IN_USE naming the transaction while a hold it made awaits capture or void', async () => {
    const held = expectWrapped(await charge(tenant, cardCharge(await cardToken(tenant), { capture: false })), 201);
    expect(held.status).to.equal('pre_authorized');
    await routeElsewhere();

    const refused = expectError(await deleteUsed(), 400, 'validation_error', 'CONNECTOR_IN_USE');
    expect(refused.details).to.deep.equal({ transaction_ids: [held.id] });
    expect(await rows('select id from merchant_connectors where id = ?', [used.id])).to.have.length(1);

    expect(expectWrapped(await post(`/transactions/${held.id}/void`), 200).status).to.equal('voided');
    expect((await deleteUsed()).status).to.equal(204);
  });

  it('refuses the delete while a refund of one of its charges awaits the provider', async () => {
    const paid = expectWrapped(await charge(tenant, cardCharge(await cardToken(tenant))), 201);
    await routeElsewhere();
    // A refund the provider has not decided yet (as a provider that answers refunds pending leaves it).
    await rows(
      `insert into refunds (id, organization_id, merchant_id, transaction_id, amount, currency, status)
       values ('ref_pending_delete_test', ?, ?, ?, 100, ?, 'pending')`,
      [tenant.organization_id, tenant.merchant_id, paid.id, paid.currency],
    );
    const refused = expectError(await deleteUsed(), 400, 'validation_error', 'CONNECTOR_IN_USE');
    expect(refused.details).to.deep.equal({ transaction_ids: [paid.id] });
  });

  it('a refund of a charge whose connector was deleted is 422 CONNECTOR_DELETED at once and changes nothing', async () => {
    const paid = expectWrapped(await charge(tenant, cardCharge(await cardToken(tenant))), 201);
    expect(paid.status).to.equal('authorized');
    await routeElsewhere();
    expect((await deleteUsed()).status).to.equal(204);

    const refused = expectError(
      await post(`/transactions/${paid.id}/refunds`),
      422,
      'business_rule_error',
      'CONNECTOR_DELETED',
    );
    expect(refused.message).to.match(/deleted/);
    // A move the charge's state forbids anyway says so first.
    expectError(
      await post(`/transactions/${paid.id}/capture`),
      422,
      'business_rule_error',
      'TRANSACTION_ALREADY_CAPTURED',
    );

    expect(await rows('select id from refunds where transaction_id = ?', [paid.id])).to.deep.equal([]);
    const [after] = await rows('select status from transactions where id = ?', [paid.id]);
    expect(after.status).to.equal('authorized');
  });
});
