/**
 * The notice the sign-in page shows for `?reason=`: a fixed text per known code, nothing for anything else. Showing
 * the parameter's own text let anyone put their words ("call this number…") inside the genuine sign-in page.
 */
const REASONS: Readonly<Record<string, string>> = {
  'session-ended': 'Your session has ended; sign in again.',
  'password-changed': 'Your password was changed; sign in with the new one.',
};

export function signInReason(code: string | null | undefined): string | undefined {
  return code && Object.prototype.hasOwnProperty.call(REASONS, code) ? REASONS[code] : undefined;
}
