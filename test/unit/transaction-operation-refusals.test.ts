/**
 * The 422 a capture, void or refund gets from a status its move does not apply from is decided by the state table
 * (OPERATION_MOVES beside TRANSACTION_MOVES), and the API documents the same codes: each route's OpenAPI
 * description and the table in docs/api-decisions.md.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { ROUTES } from '../../api/app';
import { buildOpenApi } from '../../api/http/openapi';
import { TRANSACTION_STATUSES } from '../../db/entities';
import {
  OPERATION_MOVES,
  canApply,
  operationRefusal,
  refusalCodes,
  statusesAllowing,
  type TransactionOperation,
} from '../../domain/transactions/transactions.state-table';

const ROOT = path.resolve(__dirname, '../..');
const OPERATIONS = Object.keys(OPERATION_MOVES) as TransactionOperation[];
/** Every code the API answers for a status an operation does not apply from. */
const STATE_CODES = [
  'TRANSACTION_ALREADY_CAPTURED',
  'TRANSACTION_ALREADY_VOIDED',
  'TRANSACTION_ALREADY_REFUNDED',
  'INVALID_STATE_TRANSITION',
];
const codesIn = (text: string) => STATE_CODES.filter((code) => text.includes(code)).sort();

describe('Rule: every capture, void and refund is refused by the state table with its code', () => {
  it('has a row for capture, void and refund, each naming the move it starts', () => {
    expect(OPERATIONS).to.have.members(['capture', 'void', 'refund']);
    for (const operation of OPERATIONS)
      expect(statusesAllowing(OPERATION_MOVES[operation].event), operation).to.not.be.empty;
  });

  it('allows an operation exactly from the statuses its move applies from, and refuses every other with a code of its row', () => {
    for (const operation of OPERATIONS) {
      const { event } = OPERATION_MOVES[operation];
      for (const status of TRANSACTION_STATUSES) {
        for (const amountCaptured of [0, 1500]) {
          const refusal = operationRefusal(operation, { status, amountCaptured });
          if (canApply(status, event)) expect(refusal, `${operation} from ${status}`).to.equal(null);
          else expect(refusalCodes(operation), `${operation} from ${status}`).to.include(refusal?.code);
        }
      }
    }
  });

  it('answers the codes the API has always answered', () => {
    const refused = (operation: TransactionOperation, status: string, amountCaptured = 0) =>
      operationRefusal(operation, { status: status as never, amountCaptured })?.code;
    expect(refused('capture', 'voided')).to.equal('TRANSACTION_ALREADY_VOIDED');
    expect(refused('void', 'voided')).to.equal('TRANSACTION_ALREADY_VOIDED');
    expect(refused('capture', 'authorized', 1500)).to.equal('TRANSACTION_ALREADY_CAPTURED');
    expect(refused('void', 'refunded', 1500)).to.equal('TRANSACTION_ALREADY_CAPTURED');
    expect(refused('capture', 'authorized', 0)).to.equal('INVALID_STATE_TRANSITION');
    expect(refused('capture', 'failed')).to.equal('INVALID_STATE_TRANSITION');
    expect(refused('refund', 'refunded', 1500)).to.equal('TRANSACTION_ALREADY_REFUNDED');
    expect(refused('refund', 'pre_authorized')).to.equal('INVALID_STATE_TRANSITION');
    expect(operationRefusal('refund', { status: 'failed', amountCaptured: 0 })?.message).to.equal(
      'A transaction that is failed cannot be refunded',
    );
  });

  it("documents each operation's codes in its OpenAPI description, and no other operation's", () => {
    const paths = buildOpenApi(ROUTES, '/api/v1', 'https://api.example.com').paths as Record<
      string,
      Record<string, { description?: string }>
    >;
    const routeOf: Record<TransactionOperation, string> = {
      capture: '/api/v1/transactions/{transactionId}/capture',
      void: '/api/v1/transactions/{transactionId}/void',
      refund: '/api/v1/transactions/{transactionId}/refunds',
    };
    for (const operation of OPERATIONS) {
      const description = paths[routeOf[operation]]?.post?.description ?? '';
      expect(codesIn(description), operation).to.deep.equal([...refusalCodes(operation)].sort());
    }
  });

  it('writes the same codes in the refusal table of docs/api-decisions.md, one row per operation', () => {
    const doc = fs.readFileSync(path.join(ROOT, 'docs/api-decisions.md'), 'utf8').split('\n');
    for (const operation of OPERATIONS) {
      const row = doc.find((line) => line.startsWith(`| ${operation} |`));
      expect(row, `docs row for ${operation}`).to.be.a('string');
      expect(codesIn(row!), operation).to.deep.equal([...refusalCodes(operation)].sort());
      for (const status of statusesAllowing(OPERATION_MOVES[operation].event)) expect(row).to.include(status);
    }
  });
});
