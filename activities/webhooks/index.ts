/** The outgoing-webhook activities: outbox fan-out and delivery attempts. */
import type { Client } from '@temporalio/client';
import type { Orm } from '../../db/orm';
import { createDeliverActivities, type WebhookSettings } from './deliver';
import { createFanOutActivities } from './fan-out';

export interface WebhookDeps {
  orm: Orm;
  /** Required for deliverWebhook; the worker passes webhookSettingsOf(config). */
  webhooks?: WebhookSettings;
  /** Starts delivery workflows (sweep, recover); the worker passes its outbox client. */
  temporalClient?: Client;
}

export function createWebhookActivities(deps: WebhookDeps) {
  return {
    ...createFanOutActivities(deps),
    ...createDeliverActivities(deps),
  };
}
