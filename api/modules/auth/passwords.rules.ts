/** The password policy of Document 1 (Dashboard sign-in, rule 3). */
export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 128;

/** Why `password` breaks the policy (empty when it does not). */
export function passwordProblems(password: string): string[] {
  const problems: string[] = [];
  const length = [...password].length;
  if (length < PASSWORD_MIN_LENGTH || length > PASSWORD_MAX_LENGTH) {
    problems.push(`must be ${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters`);
  }
  if (!/\p{Ll}/u.test(password)) problems.push('must contain a lowercase letter');
  if (!/\p{Lu}/u.test(password)) problems.push('must contain an uppercase letter');
  if (!/[0-9]/.test(password)) problems.push('must contain a number');
  return problems;
}
