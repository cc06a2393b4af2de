/**
 * The API's one gateway to Temporal: every workflow start, start-or-join, signal, update and wait the API makes
 * goes through a typed function here, with the workflow ids, task queues, search attributes and summaries
 * operators see, and the one mapping of "Temporal could not be reached" to a retryable 502. Route handlers and
 * services never touch `client.workflow` themselves (test/unit/architecture.test.ts).
 */
export * from './connection';
export * from './transactions';
export * from './checkout';
export * from './webhooks';
export * from './provider-webhooks';
export * from './subscriptions';
export * from './test-clocks';
