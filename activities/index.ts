/** createActivities(deps): every activity the worker registers, built from injected dependencies. */
import { createHousekeepingActivities, type HousekeepingDeps } from './housekeeping';
import { createCheckoutActivities, type CheckoutDeps } from './checkout';
import { createWebhookActivities, type WebhookDeps } from './webhooks';
import { createVaultActivities, type VaultDeps } from './vault';
import { createTransactionActivities } from './transactions';
import { createOperationActivities } from './transactions/operations';
import { createReconcileActivities } from './transactions/reconcile';
import { createSettlementActivities } from './transactions/settlement';
import { createMailActivities, type MailDeps } from './mail';
import { createConnectorActivities } from './connectors';
import { createSubscriptionActivities, type SubscriptionDeps } from './subscriptions';

export type ActivityDeps = HousekeepingDeps & CheckoutDeps & WebhookDeps & VaultDeps & MailDeps & SubscriptionDeps;

export function createActivities(deps: ActivityDeps) {
  return {
    ...createHousekeepingActivities(deps),
    ...createCheckoutActivities(deps),
    ...createWebhookActivities(deps),
    ...createVaultActivities(deps),
    ...createTransactionActivities(deps),
    ...createOperationActivities(deps),
    ...createReconcileActivities(deps),
    ...createSettlementActivities(deps),
    ...createMailActivities(deps),
    ...createConnectorActivities(deps),
    ...createSubscriptionActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
