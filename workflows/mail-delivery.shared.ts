/**
 * What the mail delivery workflow shares with its starters (the outbox listener's kick, the mail sweep): its id,
 * start options and registered name. Pure, like Temporal's samples' shared.ts: activities import this file, never
 * workflows/mail-delivery.ts.
 */
export const mailDeliveryWorkflowId = (mailId: string) => `mail-${mailId}`;

/** Registered name (workflows/index.ts): activities start the workflow by name. */
export const MAIL_DELIVERY_WORKFLOW = 'mailDeliveryWorkflow';
export type MailDeliveryWorkflow = (mailId: string) => Promise<string>;

export const mailDeliveryStartOptions = (mailId: string, taskQueue: string) => ({
  workflowId: mailDeliveryWorkflowId(mailId),
  taskQueue,
  args: [mailId] as [string],
  workflowIdReusePolicy: 'REJECT_DUPLICATE' as const,
  workflowIdConflictPolicy: 'FAIL' as const,
});
