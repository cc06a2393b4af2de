/** Bundle entry: every workflow the worker runs. */
export { housekeepingWorkflow } from './housekeeping';
export { checkoutExpiryWorkflow } from './checkout-expiry';
export { webhookDeliveryWorkflow } from './webhook-delivery';
export { webhookOutboxSweepWorkflow, webhookRecoverWorkflow } from './webhook-fan-out';
export { cardVerificationWorkflow } from './card-verification';
export { chargeWorkflow, asyncSettlementWorkflow } from './charge';
export { transactionOperationWorkflow } from './transaction-operation';
export { reconcileUnknownOutcomesWorkflow } from './reconcile-unknown-outcomes';
export { subscriptionWorkflow } from './subscription';
