/**
 * The API half of enrolment verification: which connectors to try (the named one, or the merchant's routing
 * engine for a zero-amount recurring-setup card charge); api/temporal/ runs cardVerificationWorkflow.
 * The API never calls a provider itself; the workflow's activity does, with ids only in its history.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { MerchantConnectorSchema, PaymentProviderSchema, type CardToken } from '../../../db/entities';
import { loadRoutingPlanInput, NoActiveRoutingProfileError, planRoute } from '../../../domain/routing/routing.load';
import { connectorState } from '../../../domain/routing/routing.program';
import { errors } from '../../../domain/platform/errors';

export interface VerificationCharge {
  connectorId?: string;
  token: CardToken;
  currency: string;
  country: string | null;
  /** Production: a browser may not name a test-mode connector. */
  production: boolean;
}

/** Which rule refused the named connector is the merchant's configuration: a browser learns only that it did. */
const notEligible = (connectorId: string, _reason: string) =>
  errors.businessRule('CONNECTOR_NOT_ELIGIBLE', 'The named connector cannot verify this card', { connectorId });

/** Ordered connector ids to verify on; 400/422 when none can take this card. */
export async function planVerification(
  em: EntityManager,
  merchantId: string,
  charge: VerificationCharge,
): Promise<string[]> {
  if (charge.connectorId !== undefined) {
    const connector = await em.findOne(MerchantConnectorSchema, { id: charge.connectorId, merchantId });
    if (!connector) throw errors.invalidValue('connectorId', 'no such connector for this merchant');
    const provider = await em.findOne(PaymentProviderSchema, { slug: connector.providerSlug });
    const state = connectorState(connector, provider ?? undefined);
    const problem = !state.isActive
      ? 'is inactive'
      : !state.paymentMethods.includes('card')
        ? 'does not take cards'
        : !state.cardBrands.includes(charge.token.cardBrand)
          ? `does not take ${charge.token.cardBrand} cards`
          : !state.currencies.includes(charge.currency.toUpperCase())
            ? `does not take ${charge.currency.toUpperCase()}`
            : null;
    if (problem) throw notEligible(connector.id, problem);
    // Document 3 lets the browser name the connector; it may only pick among those the merchant's own routing would
    // try for this card, so a card tester cannot steer verifications to the connector with the weakest screening.
    if (charge.production && connector.isTestMode) throw notEligible(connector.id, 'is in test mode');
    // Routing-eligible: named by the merchant's active card routing profile (a rule's action or its default), so
    // traffic splits do not make the answer random.
    const routing = await loadRoutingPlanInput(em, merchantId, { paymentMethod: 'credit_card' });
    if (!routing?.connectors.has(connector.id)) {
      throw notEligible(connector.id, "is not one the merchant's card routing uses");
    }
    return [connector.id];
  }
  try {
    const { plan } = await planRouteFor(em, merchantId, charge);
    if (plan.attempts.length === 0) {
      // The routing plan's skipped connectors and reasons stay out of a public-key answer: they map the
      // merchant's routing for whoever holds the page. The merchant sees its routing through its own API.
      throw errors.businessRule('NO_ELIGIBLE_CONNECTOR', 'No active connector of this merchant can verify this card');
    }
    return plan.attempts.map((attempt) => attempt.connectorId);
  } catch (error) {
    if (!(error instanceof NoActiveRoutingProfileError)) throw error;
    throw errors.businessRule(
      'NO_ACTIVE_ROUTING_PROFILE',
      'The merchant has no active routing profile for card payments; name a connectorId',
    );
  }
}

function planRouteFor(em: EntityManager, merchantId: string, charge: VerificationCharge) {
  return planRoute(em, merchantId, {
    paymentMethod: 'credit_card',
    currency: charge.currency.toUpperCase(),
    amount: 0,
    cardBrand: charge.token.cardBrand,
    binCountry: null,
    // Enrolment sets the card up for merchant-initiated (recurring) charges: route it where those go.
    isRecurring: true,
    installments: 1,
    randomDraw: Math.random(),
  });
}
