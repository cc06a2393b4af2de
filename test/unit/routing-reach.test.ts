/**
 * What the checkout offers is what routing can charge (api/modules/routing/routing-reach.rules.ts):
 * for any program, connector states and charge of a checkout method, the connectors the checkout counts on are
 * exactly the connectors the engine's plan would try — so a method is offered iff some charge of it has a route.
 */
import { expect } from 'chai';
import {
  evaluate,
  type ConnectorState,
  type ProgramNode,
  type RoutingProgram,
} from '../../domain/routing/routing.evaluate';
import {
  CHECKOUT_METHODS,
  profileFor,
  servingConnectorIds,
  type ActiveProfile,
} from '../../api/modules/routing/routing-reach.rules';
import { pick, seeded } from '../helpers/seeded';
import { act, cond } from '../helpers/routing-program';

const CURRENCIES = ['BRL', 'USD', 'JPY'];

function randomCase(seed: number) {
  const random = seeded(seed);
  const { int, one, chance } = pick(random);
  const ids = Array.from({ length: int(1, 5) }, (_, i) => `conn_${i}`);
  const connectors = new Map<string, ConnectorState>();
  for (const id of ids) {
    if (chance(0.1)) continue;
    connectors.set(id, {
      isActive: chance(0.8),
      isTestMode: false,
      providerSlug: 'provider_x',
      cardBrands: ['visa'],
      paymentMethods: ['card', 'pix', 'boleto', 'wallet'].filter(() => chance(0.5)),
      currencies: CURRENCIES.filter(() => chance(0.6)),
    });
  }
  let counter = 0;
  const nodes = (depth: number): ProgramNode[] =>
    Array.from({ length: int(0, 3) }, (): ProgramNode =>
      depth < 2 && chance(0.4)
        ? cond(`rn_${counter++}`, 'amount', 'gte', int(0, 10_000), nodes(depth + 1), nodes(depth + 1), chance(0.85))
        : act(`rn_${counter++}`, one(ids), { isActive: chance(0.85) }),
    );
  const program: RoutingProgram = { nodes: nodes(0), defaultConnectorId: one(ids) };
  return { program, connectors, amount: int(0, 20_000), currency: one(CURRENCIES) };
}

describe('Rule: the checkout offers a method only when routing can charge it', () => {
  it('the connectors counted on are exactly those the engine plans, for any charge of the method (2,000 seeded cases)', () => {
    for (let seed = 1; seed <= 2000; seed += 1) {
      const { program, connectors, amount, currency } = randomCase(seed);
      for (const method of CHECKOUT_METHODS) {
        const served = servingConnectorIds([{ paymentMethod: '*', program }], connectors, method, currency);
        const plan = evaluate(program, connectors, {
          paymentMethod: method,
          currency,
          amount,
          cardBrand: null,
          isRecurring: false,
          installments: 1,
          randomDraw: 0.5,
        });
        expect(new Set(served), `seed ${seed} ${method}`).to.deep.equal(
          new Set(plan.attempts.map((attempt) => attempt.connectorId)),
        );
      }
    }
  });

  it('a method uses its own active profile before the * catch-all, and no profile offers nothing', () => {
    const program = (defaultConnectorId: string): RoutingProgram => ({ nodes: [], defaultConnectorId });
    const profiles: ActiveProfile[] = [
      { paymentMethod: '*', program: program('conn_all') },
      { paymentMethod: 'pix', program: program('conn_pix') },
    ];
    expect(profileFor(profiles, 'pix')?.program.defaultConnectorId).to.equal('conn_pix');
    expect(profileFor(profiles, 'boleto')?.program.defaultConnectorId).to.equal('conn_all');
    expect(profileFor([], 'credit_card')).to.equal(undefined);
    const states = new Map<string, ConnectorState>([
      [
        'conn_all',
        {
          isActive: true,
          isTestMode: false,
          providerSlug: 'a',
          cardBrands: [],
          paymentMethods: ['pix'],
          currencies: ['BRL'],
        },
      ],
      [
        'conn_pix',
        {
          isActive: true,
          isTestMode: false,
          providerSlug: 'b',
          cardBrands: [],
          paymentMethods: ['card'],
          currencies: ['BRL'],
        },
      ],
    ]);
    // The pix profile's connector cannot take pix: the catch-all's pix connector does not stand in for it.
    expect(servingConnectorIds(profiles, states, 'pix', 'BRL')).to.deep.equal([]);
    expect(servingConnectorIds(profiles, states, 'pix', null)).to.deep.equal([]);
    expect(servingConnectorIds([profiles[0]], states, 'pix', null)).to.deep.equal(['conn_all']);
    expect(servingConnectorIds([profiles[0]], states, 'pix', 'USD')).to.deep.equal([]);
  });
});
