/**
 * Which connectors routing can send a checkout payment method to (the checkout offers only the
 * methods and brands routing can serve). Pure: the same reading of a profile as the engine's (routing.evaluate.ts),
 * whose plan for any charge is the first matching action, then every other active action, then the default — so
 * the connectors a method can ever reach are the profile's active actions plus its default, less those that can't
 * take the method or currency. The circuit is left out on purpose: an open circuit is minutes of an incident, and
 * a checkout tab that comes and goes with it would confuse buyers more than a retried attempt.
 */
import {
  providerMethodOf,
  type TransactionPaymentMethod,
  type ConnectorState,
  type ProgramNode,
  type RoutingProgram,
} from '../../../domain/routing/routing.evaluate';

/** The methods a hosted checkout can offer, with the routing profile method each is charged as. */
export const CHECKOUT_METHODS = [
  'credit_card',
  'pix',
  'boleto',
  'wallet',
] as const satisfies readonly TransactionPaymentMethod[];
export type CheckoutMethod = (typeof CHECKOUT_METHODS)[number];

export interface ActiveProfile {
  /** A concrete method or the `*` catch-all. */
  paymentMethod: string;
  program: RoutingProgram;
}

/** Every connector a program can plan, in plan order: active actions (an inactive condition hides its subtree), then the default. */
export function plannableConnectorIds(program: RoutingProgram): string[] {
  const out: string[] = [];
  const visit = (nodes: readonly ProgramNode[]) => {
    for (const node of nodes) {
      if (!node.isActive) continue;
      if (node.kind === 'action') out.push(node.connectorId);
      else {
        visit(node.then);
        visit(node.else);
      }
    }
  };
  visit(program.nodes);
  out.push(program.defaultConnectorId);
  return [...new Set(out)];
}

/** The active profile a charge of `method` uses, as the engine picks it: the exact method first, then `*`. */
export function profileFor(profiles: readonly ActiveProfile[], method: CheckoutMethod): ActiveProfile | undefined {
  return profiles.find((p) => p.paymentMethod === method) ?? profiles.find((p) => p.paymentMethod === '*');
}

/**
 * The connectors, in plan order, that routing can send a `method` payment to: active, taking the method's
 * provider method and (when the checkout has one) its currency. Empty: the checkout must not offer the method.
 */
export function servingConnectorIds(
  profiles: readonly ActiveProfile[],
  connectors: ReadonlyMap<string, ConnectorState>,
  method: CheckoutMethod,
  currency: string | null,
): string[] {
  const profile = profileFor(profiles, method);
  if (!profile) return [];
  return plannableConnectorIds(profile.program).filter((id) => {
    const connector = connectors.get(id);
    return (
      connector !== undefined &&
      connector.isActive &&
      connector.paymentMethods.includes(providerMethodOf(method)) &&
      (currency === null || connector.currencies.includes(currency.toUpperCase()))
    );
  });
}
