/**
 * Two captures (or voids, or refunds) at once cannot both reach the provider: the capture or void under way owns
 * the transaction (another gets 409 OPERATION_IN_PROGRESS), and succeeded plus pending refunds never exceed the
 * captured amount. Checked against the sandbox's ledger of what reached the provider.
 */
import { expect } from 'chai';
import { api, type ApiResponse } from '../helpers/http';
import { createTenant, type Tenant } from '../helpers/factories';
import { expectError } from '../helpers/envelope';
import { rows } from '../helpers/db';
import { accountOf, ledger, type Slug } from '../helpers/sandbox';
import { cardCharge, cardToken, cascade, charge, type CascadeConnector } from '../helpers/transactions';

/** What reached the provider (replays of one idempotency key excluded) for these operations. */
async function atProvider(connector: CascadeConnector, operations: string[]) {
  return (
    await ledger({ provider: connector.slug, account: await accountOf(connector.slug as Slug, connector.credentials) })
  ).filter((e) => operations.includes(e.operation) && !e.replayed);
}

const codeOf = (res: ApiResponse) => (res.status < 300 ? String(res.status) : res.body.error.code);

describe('Concurrent captures, voids and refunds of one transaction', () => {
  let tenant: Tenant;
  let connector: CascadeConnector;
  beforeEach(async () => {
    tenant = await createTenant();
    [connector] = await cascade(tenant, ['provider_a']);
  });
  const key = () => tenant.merchant_secret_key;
  const preAuth = async () => {
    const res = await charge(tenant, cardCharge(await cardToken(tenant), { capture: false }));
    expect(res.status, res.text).to.equal(201);
    return res.body.data;
  };

  it('a second capture or a void while a capture is pending gets 409 OPERATION_IN_PROGRESS and never reaches the provider', async () => {
    const tx = await preAuth();
    // Another capture began (it owns the move) and is waiting on the provider.
    await rows(
      `update transactions set status = 'capture_pending', pending_operation_id = 'another-capture' where id = ?`,
      [tx.id],
    );
    const second = await api.post(`/transactions/${tx.id}/capture`, { key: key(), body: { amount: 99_999 } });
    expectError(second, 409, 'conflict_error', 'OPERATION_IN_PROGRESS');
    const voided = await api.post(`/transactions/${tx.id}/void`, { key: key(), body: {} });
    expectError(voided, 409, 'conflict_error', 'OPERATION_IN_PROGRESS');
    expect(await atProvider(connector, ['capture', 'void'])).to.deep.equal([]);
    const [row] = await rows('select status, pending_operation_id from transactions where id = ?', [tx.id]);
    expect(row).to.deep.equal({ status: 'capture_pending', pending_operation_id: 'another-capture' });
  });

  it('concurrent captures and voids without Idempotency-Keys: exactly one reaches the provider, the others get 409 or 422', async function () {
    this.timeout(60_000);
    const tx = await preAuth();
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        i % 2 === 0
          ? api.post(`/transactions/${tx.id}/capture`, { key: key(), body: { amount: 1000 + i } })
          : api.post(`/transactions/${tx.id}/void`, { key: key(), body: {} }),
      ),
    );
    const codes = answers.map(codeOf);
    expect(
      codes.filter((code) => code === '200'),
      codes.join(),
    ).to.have.length(1);
    for (const code of codes.filter((c) => c !== '200')) {
      expect(['OPERATION_IN_PROGRESS', 'TRANSACTION_ALREADY_CAPTURED', 'TRANSACTION_ALREADY_VOIDED']).to.include(code);
    }
    const reached = await atProvider(connector, ['capture', 'void']);
    expect(reached, JSON.stringify(reached)).to.have.length(1);
    const winner = answers.find((res) => res.status === 200)!.body.data;
    const read = (await api.get(`/transactions/${tx.id}`, { key: key() })).body.data;
    expect(read.status).to.equal(winner.status);
    if (reached[0].operation === 'capture') {
      expect(read).to.include({ status: 'authorized', amount_captured: reached[0].amount });
    } else {
      expect(read.status).to.equal('voided');
    }
    const [row] = await rows('select pending_operation_id from transactions where id = ?', [tx.id]);
    expect(row.pending_operation_id).to.equal(null);
  });

  it('20 concurrent refunds: succeeded plus pending refunds never exceed the captured amount, at the provider too', async function () {
    this.timeout(60_000);
    const charged = await charge(tenant, cardCharge(await cardToken(tenant)));
    expect(charged.status, charged.text).to.equal(201);
    const tx = charged.body.data;
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        api.post(`/transactions/${tx.id}/refunds`, { key: key(), body: { amount: 200 } }),
      ),
    );
    const codes = answers.map(codeOf);
    // 1500 captured: seven refunds of 200 fit, the eighth would exceed it.
    expect(
      codes.filter((code) => code === '201'),
      codes.join(),
    ).to.have.length(7);
    for (const code of codes.filter((c) => c !== '201')) {
      expect(['REFUND_EXCEEDS_BALANCE', 'TRANSACTION_ALREADY_REFUNDED']).to.include(code);
    }
    const [sums] = await rows(
      `select coalesce(sum(amount) filter (where status in ('succeeded', 'pending')), 0)::int as total from refunds where transaction_id = ?`,
      [tx.id],
    );
    expect(sums.total).to.equal(1400);
    const refunds = await atProvider(connector, ['refund']);
    expect(refunds.map((e) => e.outcome)).to.have.length(7);
    expect(refunds.reduce((sum, e) => sum + (e.amount ?? 0), 0)).to.equal(1400);
    const read = (await api.get(`/transactions/${tx.id}`, { key: key() })).body.data;
    expect(read).to.include({ status: 'partially_refunded', amount_refunded: 1400 });
  });
});
