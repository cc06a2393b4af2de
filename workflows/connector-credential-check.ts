/**
 * "Test connection" of a connector (POST /org/connectors/:id/test): one activity that runs the provider's own
 * credentials check through its adapter. Input and result carry ids and a fixed-text verdict only; the activity
 * decrypts the credentials itself, just before the call.
 */
import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { CredentialCheckInput, CredentialCheckResult } from './connector-credential-check.shared';

// A check has no side effect at the provider, so a crashed attempt is simply run again; the API waits ~1 minute.
const { checkConnectorCredentials } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumAttempts: 2 },
});

export async function connectorCredentialCheckWorkflow(input: CredentialCheckInput): Promise<CredentialCheckResult> {
  return checkConnectorCredentials(input);
}
