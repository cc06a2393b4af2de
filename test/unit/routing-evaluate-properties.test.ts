/**
 * Property tests for the routing engine over seeded random trees, connector states and charges. Each property
 * is checked against thousands of generated cases; a failure names the seed so it can be replayed.
 */
import { expect } from 'chai';
import {
  conditionHolds,
  evaluate,
  ineligibility,
  walk,
  type ActionNode,
  type ChargeAttributes,
  type TransactionPaymentMethod,
  type ConnectorState,
  type ProgramNode,
  type RoutingProgram,
} from '../../domain/routing/routing.evaluate';
import { pick, seeded } from '../helpers/seeded';
import { act, cond } from '../helpers/routing-program';

const CASES = 3000;
const METHODS: TransactionPaymentMethod[] = ['credit_card', 'debit_card', 'pix', 'boleto', 'wallet'];
const BRANDS = ['visa', 'mastercard', 'amex', 'elo'];
const CURRENCIES = ['BRL', 'USD', 'EUR'];
const COUNTRIES = ['BR', 'US', 'DE'];

interface Case {
  program: RoutingProgram;
  connectors: Map<string, ConnectorState>;
  charge: ChargeAttributes;
}

function generate(seed: number): Case {
  const random = seeded(seed);
  const { int, one, chance } = pick(random);
  const subset = <T>(items: readonly T[]) => items.filter(() => chance(0.6));
  const connectorIds = Array.from({ length: int(1, 6) }, (_, i) => `conn_${i}`);
  const connectors = new Map<string, ConnectorState>();
  for (const id of connectorIds) {
    if (chance(0.1)) continue; // a connector deleted since: unknown to the map
    connectors.set(id, {
      isActive: chance(0.8),
      isTestMode: false,
      providerSlug: 'provider_x',
      cardBrands: subset(BRANDS),
      paymentMethods: subset(['card', 'pix', 'boleto', 'wallet']),
      currencies: subset(CURRENCIES),
      supportsThreeDs: true,
    });
  }
  let counter = 0;
  const condition = (then: ProgramNode[], otherwise: ProgramNode[]) => {
    const id = `rn_${counter++}`;
    const active = chance(0.9);
    switch (int(0, 6)) {
      case 0:
        return cond(id, 'currency', one(['eq', 'neq'] as const), one(CURRENCIES), then, otherwise, active);
      case 1:
        return cond(
          id,
          'amount',
          one(['gt', 'gte', 'lt', 'lte', 'eq'] as const),
          int(0, 20_000),
          then,
          otherwise,
          active,
        );
      case 2:
        return cond(
          id,
          'card_brand',
          one(['in', 'not_in'] as const),
          subset(BRANDS).concat('visa'),
          then,
          otherwise,
          active,
        );
      case 3:
        return cond(id, 'bin_country', one(['eq', 'regex'] as const), one(COUNTRIES), then, otherwise, active);
      case 4:
        return cond(id, 'is_recurring', one(['eq', 'neq'] as const), chance(0.5), then, otherwise, active);
      case 5:
        return cond(id, 'installments', one(['gte', 'lt'] as const), int(1, 12), then, otherwise, active);
      default:
        return cond(id, 'math/random', one(['lt', 'gte'] as const), random(), then, otherwise, active);
    }
  };
  const nodes = (depth: number): ProgramNode[] =>
    Array.from({ length: int(0, depth === 0 ? 4 : 3) }, (): ProgramNode =>
      depth < 3 && chance(0.45)
        ? condition(nodes(depth + 1), nodes(depth + 1))
        : act(`rn_${counter++}`, one(connectorIds), {
            isActive: chance(0.85),
            require3ds: one(['never', 'if_supported', 'always'] as const),
          }),
    );
  return {
    program: { nodes: nodes(0), defaultConnectorId: one(connectorIds) },
    connectors,
    charge: {
      paymentMethod: one(METHODS),
      currency: one(CURRENCIES),
      amount: int(0, 20_000),
      cardBrand: chance(0.8) ? one(BRANDS) : null,
      binCountry: chance(0.8) ? one(COUNTRIES) : null,
      isRecurring: chance(0.3),
      installments: int(1, 12),
      randomDraw: random(),
    },
  };
}

/** Active actions whose every ancestor condition is active, in evaluation order (an independent reference). */
function reachableActions(nodes: ProgramNode[]): ActionNode[] {
  const out: ActionNode[] = [];
  const visit = (list: ProgramNode[]) => {
    for (const node of list) {
      if (!node.isActive) continue;
      if (node.kind === 'action') out.push(node);
      else {
        visit(node.then);
        visit(node.else);
      }
    }
  };
  visit(nodes);
  return out;
}

/** Parent condition and branch of each node, to check a match against the conditions on its path. */
function parents(nodes: ProgramNode[]): Map<string, { parent: ProgramNode; branch: 'then' | 'else' }> {
  const map = new Map<string, { parent: ProgramNode; branch: 'then' | 'else' }>();
  for (const node of walk(nodes)) {
    if (node.kind !== 'condition') continue;
    for (const child of node.then) map.set(child.id, { parent: node, branch: 'then' });
    for (const child of node.else) map.set(child.id, { parent: node, branch: 'else' });
  }
  return map;
}

function forAllCases(check: (c: Case, seed: number) => void): void {
  for (let seed = 1; seed <= CASES; seed += 1) {
    try {
      check(generate(seed), seed);
    } catch (error) {
      (error as Error).message = `seed ${seed}: ${(error as Error).message}`;
      throw error;
    }
  }
}

describe('evaluate (properties over seeded random cases)', () => {
  it('every attempt names a known, active connector that can take the charge', () => {
    forAllCases(({ program, connectors, charge }) => {
      for (const attempt of evaluate(program, connectors, charge).attempts) {
        expect(ineligibility(connectors.get(attempt.connectorId), charge)).to.equal(null);
      }
    });
  });

  it('never lists a connector twice', () => {
    forAllCases(({ program, connectors, charge }) => {
      const ids = evaluate(program, connectors, charge).attempts.map((attempt) => attempt.connectorId);
      expect(new Set(ids).size).to.equal(ids.length);
    });
  });

  it('contains the default connector exactly when it is eligible, last unless an action already placed it', () => {
    forAllCases(({ program, connectors, charge }) => {
      const { attempts } = evaluate(program, connectors, charge);
      const eligible = ineligibility(connectors.get(program.defaultConnectorId), charge) === null;
      const index = attempts.findIndex((attempt) => attempt.connectorId === program.defaultConnectorId);
      expect(index >= 0).to.equal(eligible);
      if (index >= 0 && attempts[index].reason === 'default') {
        expect(index).to.equal(attempts.length - 1);
        expect(attempts[index].nodeId).to.equal(null);
      }
    });
  });

  it('lists exactly the eligible connectors of reachable active actions plus the eligible default, in evaluation order after the match', () => {
    forAllCases(({ program, connectors, charge }) => {
      const plan = evaluate(program, connectors, charge);
      const eligible = (id: string) => ineligibility(connectors.get(id), charge) === null;
      const reachable = reachableActions(program.nodes);
      const expected = new Set(reachable.map((node) => node.connectorId).filter(eligible));
      if (eligible(program.defaultConnectorId)) expected.add(program.defaultConnectorId);
      expect(new Set(plan.attempts.map((attempt) => attempt.connectorId))).to.deep.equal(expected);
      const fallbackNodes = plan.attempts
        .filter((attempt) => attempt.reason === 'fallback')
        .map((attempt) => attempt.nodeId);
      const order = reachable.map((node) => node.id).filter((id) => fallbackNodes.includes(id));
      expect(fallbackNodes).to.deep.equal(order);
    });
  });

  it('matches an active action whose path of conditions agrees with the charge, and puts it first when eligible', () => {
    forAllCases(({ program, connectors, charge }) => {
      const plan = evaluate(program, connectors, charge);
      const matched = plan.attempts.filter((attempt) => attempt.reason === 'matched');
      expect(matched.length).to.be.at.most(1);
      if (plan.matchedNodeId === null) {
        expect(matched).to.be.empty;
        return;
      }
      const node = [...walk(program.nodes)].find((candidate) => candidate.id === plan.matchedNodeId) as ActionNode;
      expect(node.kind).to.equal('action');
      expect(node.isActive).to.equal(true);
      const up = parents(program.nodes);
      for (let link = up.get(node.id); link; link = up.get(link.parent.id)) {
        const parent = link.parent as Extract<ProgramNode, { kind: 'condition' }>;
        expect(parent.isActive).to.equal(true);
        expect(conditionHolds(parent, charge)).to.equal(link.branch === 'then');
      }
      if (ineligibility(connectors.get(node.connectorId), charge) === null) {
        expect(plan.attempts[0]).to.include({ nodeId: node.id, reason: 'matched', connectorId: node.connectorId });
      }
    });
  });

  it('gives the same plan for the same input and draw (also for a structural copy)', () => {
    forAllCases(({ program, connectors, charge }) => {
      const copy = structuredClone({ program, connectors, charge });
      expect(evaluate(copy.program, copy.connectors, copy.charge)).to.deep.equal(evaluate(program, connectors, charge));
    });
  });

  it('routes about 30% of 10,000 draws through a math/random lt 0.3 split (within ±2%)', () => {
    const random = seeded(42);
    const program = {
      nodes: [cond('split', 'math/random', 'lt', 0.3, [act('a', 'A')], [act('b', 'B')])],
      defaultConnectorId: 'A',
    };
    const state: ConnectorState = {
      isActive: true,
      isTestMode: false,
      providerSlug: 'provider_a',
      cardBrands: ['visa'],
      paymentMethods: ['card'],
      currencies: ['BRL'],
    };
    const connectors = new Map([
      ['A', state],
      ['B', state],
    ]);
    let toA = 0;
    for (let i = 0; i < 10_000; i += 1) {
      const plan = evaluate(program, connectors, {
        paymentMethod: 'credit_card',
        currency: 'BRL',
        amount: 100,
        cardBrand: 'visa',
        isRecurring: false,
        installments: 1,
        randomDraw: random(),
      });
      if (plan.attempts[0].connectorId === 'A') toA += 1;
      expect(plan.attempts.map((attempt) => attempt.connectorId)).to.have.members(['A', 'B']);
    }
    expect(toA / 10_000).to.be.within(0.28, 0.32);
  });
});
