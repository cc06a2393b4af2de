/** From database rows to the engine's program (domain/routing/routing.program.ts). */
import { expect } from 'chai';
import { buildProgram, connectorState, evaluationOrder } from '../../domain/routing/routing.program';
import type { RoutingNode } from '../../db/entities';

type Row = Parameters<typeof buildProgram>[1][number];
const row = (
  id: string,
  parentNodeId: string | null,
  branch: 'then' | 'else' | null,
  position: number,
  extra: Partial<RoutingNode> = {},
): Row => ({
  id,
  parentNodeId,
  branch,
  position,
  nodeType: 'action',
  isActive: true,
  conditionField: null,
  conditionOperator: null,
  conditionValue: null,
  merchantConnectorId: `conn_${id}`,
  require3ds: 'never',
  ...extra,
});
const condition = (id: string, parentNodeId: string | null, branch: 'then' | 'else' | null, position: number): Row =>
  row(id, parentNodeId, branch, position, {
    nodeType: 'condition',
    conditionField: 'currency',
    conditionOperator: 'eq',
    conditionValue: 'BRL',
    merchantConnectorId: null,
  });

describe('evaluationOrder', () => {
  it('lists roots by position and, after each condition, its then-branch subtree before its else-branch subtree', () => {
    const rows = [
      row('r2', null, null, 2),
      condition('c', null, null, 0),
      row('r1', null, null, 1),
      row('e0', 'c', 'else', 0),
      row('t1', 'c', 'then', 1),
      condition('t0', 'c', 'then', 0),
      row('t0e', 't0', 'else', 0),
      row('t0t', 't0', 'then', 0),
    ];
    expect(evaluationOrder(rows).map((node) => node.id)).to.deep.equal([
      'c',
      't0',
      't0t',
      't0e',
      't1',
      'e0',
      'r1',
      'r2',
    ]);
  });

  it('returns an empty list for an empty tree', () => {
    expect(evaluationOrder([])).to.deep.equal([]);
  });
});

describe('buildProgram', () => {
  it('nests branches by position and carries node fields and the default connector', () => {
    const rows = [
      row('a2', 'c', 'then', 1, { require3ds: 'always' }),
      row('a1', 'c', 'then', 0),
      condition('c', null, null, 0),
      row('z', null, null, 1, { isActive: false }),
    ];
    const program = buildProgram({ defaultMerchantConnectorId: 'conn_def' }, rows);
    expect(program.defaultConnectorId).to.equal('conn_def');
    expect(program.nodes).to.deep.equal([
      {
        kind: 'condition',
        id: 'c',
        isActive: true,
        field: 'currency',
        operator: 'eq',
        value: 'BRL',
        else: [],
        then: [
          { kind: 'action', id: 'a1', isActive: true, connectorId: 'conn_a1', require3ds: 'never' },
          { kind: 'action', id: 'a2', isActive: true, connectorId: 'conn_a2', require3ds: 'always' },
        ],
      },
      { kind: 'action', id: 'z', isActive: false, connectorId: 'conn_z', require3ds: 'never' },
    ]);
  });
});

describe('connectorState', () => {
  const provider = {
    supportedCardBrands: ['visa', 'mastercard', 'amex'],
    supportedPaymentMethods: ['card', 'wallet'] as const,
    supportedCurrencies: ['USD', 'BRL'],
  };
  const connector = (config: { card_brands?: string[] } | null, isActive = true) => ({
    isActive,
    isTestMode: true,
    providerSlug: 'provider_a',
    config,
  });

  it("uses the provider's brands, methods and currencies when config is null", () => {
    expect(
      connectorState(connector(null), { ...provider, supportedPaymentMethods: [...provider.supportedPaymentMethods] }),
    ).to.deep.equal({
      isActive: true,
      isTestMode: true,
      providerSlug: 'provider_a',
      cardBrands: ['visa', 'mastercard', 'amex'],
      paymentMethods: ['card', 'wallet'],
      currencies: ['USD', 'BRL'],
      supportsThreeDs: true,
    });
  });

  it('narrows brands to config.card_brands, never beyond what the provider supports', () => {
    const state = connectorState(connector({ card_brands: ['Visa', 'elo'] }), {
      ...provider,
      supportedPaymentMethods: ['card'],
    });
    expect(state.cardBrands).to.deep.equal(['visa']);
  });

  it("falls back to the provider's brands for an empty card_brands list, and keeps is_active", () => {
    const state = connectorState(connector({ card_brands: [] }, false), {
      ...provider,
      supportedPaymentMethods: ['card'],
    });
    expect(state.cardBrands).to.deep.equal(['visa', 'mastercard', 'amex']);
    expect(state.isActive).to.equal(false);
  });

  it('supports nothing when the provider is missing from the catalog', () => {
    expect(connectorState(connector(null), undefined)).to.deep.include({
      cardBrands: [],
      paymentMethods: [],
      currencies: [],
    });
  });
});
