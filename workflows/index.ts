/** Bundle entry: every workflow the worker runs. */
export { housekeepingWorkflow, pendingTransactionSweepWorkflow } from './housekeeping';
export { checkoutExpiryWorkflow } from './checkout-expiry';
export { webhookDeliveryWorkflow } from './webhook-delivery';
export { webhookOutboxSweepWorkflow, webhookRecoverWorkflow } from './webhook-fan-out';
export { cardVerificationWorkflow } from './card-verification';
export { transactionWorkflow, asyncSettlementWorkflow, transactionResolutionWorkflow } from './transaction';
export { transactionAuthenticationWorkflow } from './transaction-authentication';
export { transactionOperationWorkflow, pendingRefundWorkflow } from './transaction-operation';
export { reconcileUnknownOutcomesWorkflow } from './reconcile-unknown-outcomes';
export { mailDeliveryWorkflow, mailOutboxSweepWorkflow } from './mail-delivery';
export { connectorCredentialCheckWorkflow } from './connector-credential-check';
export { subscriptionWorkflow } from './subscription';
export { testClockAdvanceWorkflow } from './test-clock-advance';
