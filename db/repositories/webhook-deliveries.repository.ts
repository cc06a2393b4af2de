/** webhook_deliveries: the delivery log the delivery activity writes and the API and recoveries read. */

/**
 * Failed attempts (config id, since, until as parameters) of events never delivered successfully to that
 * configuration: what "recover" resends. Shared by the recovery activity and the API, which reports how many events it queues.
 */
export const RECOVERABLE_DELIVERIES = `from webhook_deliveries d
  where d.merchant_webhook_config_id = ? and d.status = 'failed' and d.created_at >= ? and d.created_at <= ?
    and not exists (select 1 from webhook_deliveries s
                     where s.merchant_webhook_config_id = d.merchant_webhook_config_id and s.event_id = d.event_id
                       and s.status = 'succeeded')`;
