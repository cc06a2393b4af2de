/**
 * What the connector credential check shares with the API that starts it and the activity that runs it: its id,
 * input and result. Pure, like Temporal's samples' shared.ts.
 */
export const connectorCredentialCheckWorkflowId = (connectorId: string, nonce: string) =>
  `connector-credential-check-${connectorId}-${nonce}`;

export interface CredentialCheckInput {
  merchantId: string;
  connectorId: string;
}

export interface CredentialCheckResult {
  ok: boolean;
  /** The adapter's fixed-text verdict (never quotes a credential or the provider's raw body). */
  message: string;
  checkedAt: string;
}
