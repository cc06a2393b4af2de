/**
 * The API half of enrolment verification: which connectors to try (the named one, or the merchant's routing
 * engine for a zero-amount recurring-setup card charge), and running cardVerificationWorkflow to its result.
 * The API never calls a provider itself; the workflow's activity does, with ids only in its history.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { MerchantConnectorSchema, PaymentProviderSchema, type CardToken } from '../../../db/entities';
import { NoActiveRoutingProfileError, planRoute } from '../../../activities/routing/load';
import { connectorState } from '../../../activities/routing/program';
import {
  cardVerificationWorkflow,
  cardVerificationWorkflowId,
  type CardVerificationInput,
  type CardVerificationResult,
} from '../../../workflows/card-verification';
import { SEARCH_ATTRIBUTE_KEYS, TASK_QUEUES } from '../../../workflows/definitions';
import { ApiError, errors } from '../../http/errors';
import { withWorkflowDeadline } from '../../lib/workflow-deadline';

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

/**
 * Runs the token's verification workflow to its result, within `waitMs`. A retry for the same token (after an
 * answer that never came) finds the same workflow, running or closed, instead of verifying the card again.
 */
export async function runVerification(
  client: Client,
  input: CardVerificationInput,
  waitMs: number,
): Promise<CardVerificationResult> {
  const workflowId = cardVerificationWorkflowId(input.tokenId);
  try {
    return await withWorkflowDeadline(client, waitMs, () =>
      client.workflow
        .execute(cardVerificationWorkflow, {
          workflowId,
          taskQueue: TASK_QUEUES.payments,
          args: [input],
          workflowExecutionTimeout: '1 minute',
          workflowIdConflictPolicy: 'USE_EXISTING',
          workflowIdReusePolicy: 'REJECT_DUPLICATE',
          typedSearchAttributes: [{ key: SEARCH_ATTRIBUTE_KEYS.MerchantId, value: input.merchantId }],
        })
        .catch((error) => {
          if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
          return client.workflow.getHandle<typeof cardVerificationWorkflow>(workflowId).result();
        }),
    );
  } catch {
    // The workflow failed, or gave no answer in time (worker down, timeout): nothing about the card is known here.
    throw new ApiError(
      502,
      'external_service_error',
      'VERIFICATION_UNAVAILABLE',
      'The card could not be verified right now; try again shortly',
    );
  }
}
