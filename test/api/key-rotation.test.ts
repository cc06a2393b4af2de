/**
 * Master-key rotation over the real database (domain/platform/key-rotation.ts, run by `npm run rotate-keys`): every
 * encrypted column is re-wrapped under the new key, the data parts stay byte-identical, re-runs do nothing.
 * The suite's API keeps using the stack key, so everything is rotated back afterwards.
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { api } from '../helpers/http';
import { createTenant, customerInput, type Tenant } from '../helpers/factories';
import { postConnector, rows, validCredentials, validWebhookSecret } from '../helpers/connectors';
import { stack } from '../helpers/stack';
import { decryptSecret, encryptSecret, keyring, masterKeyId } from '../../domain/platform/crypto';
import { encryptedColumns, rotateEncryptionKeys } from '../../domain/platform/key-rotation';
import { loadConnectorSecrets } from '../../domain/connectors/connectors.secrets';

const em = () => stack().orm.em.fork();
const oldKey = () => stack().config.encryptionKey;
const newKey = randomBytes(32);

async function countUnder(key: Buffer): Promise<number> {
  let total = 0;
  for (const { table, column } of await encryptedColumns(em())) {
    const [{ n }] = await rows(`select count(*) as n from "${table}" where split_part("${column}", '.', 2) = ?`, [
      masterKeyId(key),
    ]);
    total += Number(n);
  }
  return total;
}

describe('Master-key rotation (rotateEncryptionKeys)', () => {
  let tenant: Tenant;
  let connector: any;
  let credentials: Record<string, string>;
  let webhookSecret: string;
  let customerId: string;

  before(async () => {
    tenant = await createTenant();
    credentials = validCredentials('provider_a');
    webhookSecret = validWebhookSecret('provider_a');
    connector = await postConnector(tenant, 'provider_a', { credentials, webhook_secret: webhookSecret });
    for (let i = 0; i < 3; i += 1) await postConnector(tenant, 'provider_d');
    const customer = await api.post('/customers', {
      key: tenant.merchant_secret_key,
      body: customerInput({ document_number: '98765432100' }),
    });
    customerId = customer.body.data.id;
  });

  after(async () => {
    // Back under the stack's key, whatever happened above, so later tests can decrypt.
    await rotateEncryptionKeys(em(), keyring(oldKey(), [newKey]));
    expect(await countUnder(newKey)).to.equal(0);
  });

  it('finds every *_encrypted column by convention, including the customer and connector ones', async () => {
    const found = (await encryptedColumns(em())).map((c) => `${c.table}.${c.column}`);
    expect(found).to.include.members([
      'customers.document_number_encrypted',
      'merchant_connectors.credentials_encrypted',
      'merchant_connectors.webhook_token_encrypted',
      'merchant_connectors.webhook_secret_encrypted',
    ]);
  });

  it('values sealed under a previous key still decrypt while it is in the keyring', async () => {
    const secrets = await loadConnectorSecrets(em(), keyring(newKey, [oldKey()]), tenant.merchant_id, connector.id);
    expect(secrets.credentials).to.deep.equal(credentials);
    expect(secrets.webhookSecret).to.equal(webhookSecret);
  });

  it('re-wraps every encrypted column in batches, keeping iv, tag and ciphertext byte-identical', async () => {
    const snapshot = async () => ({
      connector: (
        await rows(
          'select credentials_encrypted, webhook_token_encrypted, webhook_secret_encrypted from merchant_connectors where id = ?',
          [connector.id],
        )
      )[0],
      customer: (await rows('select document_number_encrypted from customers where id = ?', [customerId]))[0],
    });
    const before = await snapshot();
    const batches: number[] = [];
    const { columns: results, failures } = await rotateEncryptionKeys(em(), keyring(newKey, [oldKey()]), {
      batchSize: 2,
      onBatch: (r) => batches.push(r.rewrapped),
    });
    const after = await snapshot();
    // Other tests may leave fixture rows that are not real ciphertext; none of this test's rows may fail.
    expect(failures.filter((f) => f.id === connector.id || f.id === customerId)).to.deep.equal([]);

    const mine = [
      'customers.document_number_encrypted',
      'merchant_connectors.credentials_encrypted',
      'merchant_connectors.webhook_token_encrypted',
      'merchant_connectors.webhook_secret_encrypted',
    ];
    expect(results.map((r) => `${r.table}.${r.column}`)).to.deep.equal(
      (await encryptedColumns(em())).map((c) => `${c.table}.${c.column}`),
    );
    for (const result of results.filter((r) => mine.includes(`${r.table}.${r.column}`)))
      expect(result.rewrapped).to.be.at.least(1);
    expect(batches.length).to.be.greaterThan(mine.length);
    expect(await countUnder(oldKey())).to.equal(0);

    const pairs: Array<[string, string]> = [
      [before.connector.credentials_encrypted, after.connector.credentials_encrypted],
      [before.connector.webhook_token_encrypted, after.connector.webhook_token_encrypted],
      [before.connector.webhook_secret_encrypted, after.connector.webhook_secret_encrypted],
      [before.customer.document_number_encrypted, after.customer.document_number_encrypted],
    ];
    for (const [was, now] of pairs) {
      expect(now.split('.')[1]).to.equal(masterKeyId(newKey));
      expect(now.split('.')[2]).to.not.equal(was.split('.')[2]);
      expect(now.split('.').slice(3)).to.deep.equal(was.split('.').slice(3));
      expect(decryptSecret(newKey, now)).to.equal(decryptSecret(oldKey(), was));
    }
    expect(decryptSecret(newKey, after.customer.document_number_encrypted)).to.equal('98765432100');
    const secrets = await loadConnectorSecrets(em(), newKey, tenant.merchant_id, connector.id);
    expect(secrets.credentials).to.deep.equal(credentials);
  });

  it('is idempotent: a second run re-wraps nothing', async () => {
    const { columns } = await rotateEncryptionKeys(em(), keyring(newKey, [oldKey()]));
    expect(columns.every((r) => r.rewrapped === 0)).to.equal(true);
  });

  it('reports a value under a key missing from the keyring, naming the row but never the value, and re-wraps the rest', async () => {
    const stranger = randomBytes(32);
    const [row] = await rows('select document_number_encrypted as value from customers where id = ?', [customerId]);
    await rows('update customers set document_number_encrypted = ? where id = ?', [
      encryptSecret(stranger, 'StrangerSecret42'),
      customerId,
    ]);
    try {
      const { failures } = await rotateEncryptionKeys(em(), keyring(oldKey(), [newKey]));
      const failure = failures.find((f) => f.id === customerId);
      expect(failure).to.deep.include({ table: 'customers', column: 'document_number_encrypted' });
      expect(failure?.reason).to.include(masterKeyId(stranger)).and.not.include('StrangerSecret42');
      expect(JSON.stringify(failures)).to.not.include('StrangerSecret42');
      const [row2] = await rows('select credentials_encrypted as value from merchant_connectors where id = ?', [
        connector.id,
      ]);
      expect(row2.value.split('.')[1]).to.equal(masterKeyId(oldKey()));
    } finally {
      await rows('update customers set document_number_encrypted = ? where id = ?', [row.value, customerId]);
    }
  });
});
