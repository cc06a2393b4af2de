/** The outgoing-webhook activities: outbox fan-out and delivery attempts. */
import type { Client } from '@temporalio/client';
import type { Orm } from '../../db/orm';
import { createDeliverActivities } from './deliver';
import { createFanOutActivities } from './fan-out';
import type { WebhookSettings } from './settings';

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
