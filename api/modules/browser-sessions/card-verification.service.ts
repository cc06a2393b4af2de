/**
 * The API half of enrolment verification: which connectors to try (the named one, or the merchant's routing
 * engine for a zero-amount recurring-setup card charge); api/temporal/ runs cardVerificationWorkflow.
 * The API never calls a provider itself; the workflow's activity does, with ids only in its history.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { MerchantConnectorSchema, PaymentProviderSchema, type CardToken } from '../../../db/entities';
import { NoActiveRoutingProfileError, planRoute } from '../../../domain/routing/routing.load';
import { connectorState } from '../../../domain/routing/routing.program';
import { errors } from '../../../domain/platform/errors';

export interface VerificationCharge {
  connectorId?: string;
  token: CardToken;
  currency: string;
  country: string | null;
}

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
    if (problem)
      throw errors.businessRule('CONNECTOR_NOT_ELIGIBLE', `The connector ${problem}`, { connectorId: connector.id });
    return [connector.id];
  }
  try {
    const { plan } = await planRoute(em, merchantId, {
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
    if (plan.attempts.length === 0) {
      throw errors.businessRule('NO_ELIGIBLE_CONNECTOR', 'No active connector of this merchant can verify this card', {
        skipped: plan.skipped,
      });
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
