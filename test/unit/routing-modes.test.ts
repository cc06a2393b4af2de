/** The routing engine's mode rule: a plan never mixes live and test-mode connectors. */
import { expect } from 'chai';
import { evaluate, type ChargeAttributes, type ConnectorState } from '../../domain/routing/routing.evaluate';
import { act } from '../helpers/routing-program';

const state = (isTestMode: boolean, overrides: Partial<ConnectorState> = {}): ConnectorState => ({
  isActive: true,
  isTestMode,
  providerSlug: 'provider_a',
  cardBrands: ['visa'],
  paymentMethods: ['card'],
  currencies: ['BRL', 'USD'],
  ...overrides,
});
const charge = (overrides: Partial<ChargeAttributes> = {}): ChargeAttributes => ({
  paymentMethod: 'credit_card',
  currency: 'BRL',
  amount: 1000,
  cardBrand: 'visa',
  isRecurring: false,
  installments: 1,
  randomDraw: 0.5,
  ...overrides,
});
/** LIVE1, TEST, LIVE2 as actions in that order, TEST again as the default. */
const program = { nodes: [act('n1', 'LIVE1'), act('n2', 'TEST'), act('n3', 'LIVE2')], defaultConnectorId: 'TEST' };
const plan = (connectors: Record<string, ConnectorState>, overrides: Partial<ChargeAttributes> = {}) => {
  const result = evaluate(program, new Map(Object.entries(connectors)), charge(overrides));
  return {
    mode: result.mode,
    attempts: result.attempts.map((attempt) => attempt.connectorId),
    skipped: result.skipped.map((skip) => `${skip.connectorId}:${skip.reason}`),
  };
};

describe('routing: live and test never share a plan', () => {
  it("the plan's first connector fixes the mode; connectors of the other mode are skipped as test_mode_mismatch", () => {
    expect(plan({ LIVE1: state(false), TEST: state(true), LIVE2: state(false) })).to.deep.equal({
      mode: 'live',
      attempts: ['LIVE1', 'LIVE2'],
      skipped: ['TEST:test_mode_mismatch', 'TEST:test_mode_mismatch'],
    });
  });

  it('a charge fixed as test (a test clock customer) keeps only test-mode connectors', () => {
    expect(plan({ LIVE1: state(false), TEST: state(true), LIVE2: state(false) }, { mode: 'test' })).to.deep.equal({
      mode: 'test',
      attempts: ['TEST'],
      skipped: ['LIVE1:test_mode_mismatch', 'LIVE2:test_mode_mismatch'],
    });
  });

  it('an open circuit does not change the mode: the live connector behind it still makes the charge live', () => {
    const open = { LIVE1: state(false, { circuit: 'open' }), TEST: state(true), LIVE2: state(false) };
    expect(plan(open)).to.deep.equal({
      mode: 'live',
      attempts: ['LIVE2'],
      skipped: ['LIVE1:circuit_open', 'TEST:test_mode_mismatch', 'TEST:test_mode_mismatch'],
    });
  });

  it('a connector that cannot take the charge (inactive, another currency) does not decide the mode', () => {
    const connectors = { LIVE1: state(false, { currencies: ['USD'] }), TEST: state(true), LIVE2: state(false) };
    expect(plan(connectors).mode).to.equal('test');
    expect(plan({ ...connectors, LIVE1: state(false, { isActive: false }) }).attempts).to.deep.equal(['TEST']);
  });

  it('no connector can take the charge: no mode, nothing planned', () => {
    expect(plan({ LIVE1: state(false, { isActive: false }) })).to.deep.equal({
      mode: null,
      attempts: [],
      skipped: ['LIVE1:inactive', 'TEST:unknown_connector', 'LIVE2:unknown_connector', 'TEST:unknown_connector'],
    });
  });
});
