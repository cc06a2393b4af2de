/** Bundle entry: every workflow the worker runs. */
export { housekeepingWorkflow } from './housekeeping';
export { checkoutExpiryWorkflow } from './checkout-expiry';
