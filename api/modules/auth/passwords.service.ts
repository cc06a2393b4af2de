/**
 * Password hashing: argon2id (the @node-rs/argon2 default algorithm) at the OWASP Password Storage Cheat Sheet's
 * first configuration — 19 MiB of memory, 2 iterations, 1 lane. Verification of an unknown e-mail runs against a
 * fixed dummy hash, so the answer takes as long whether or not the address exists.
 */
import { hash, verify } from '@node-rs/argon2';
import { errors } from '../../../domain/platform/errors';
import { passwordProblems } from './passwords.rules';

const OWASP = { memoryCost: 19_456, timeCost: 2, parallelism: 1, outputLen: 32 };

export function hashPassword(password: string): Promise<string> {
  return hash(password, OWASP);
}

let dummyHash: Promise<string> | undefined;

/** Whether `password` matches `stored`; with no stored hash the work is still done, and the answer is false. */
export async function verifyPassword(stored: string | null, password: string): Promise<boolean> {
  if (!stored) {
    await verify(await (dummyHash ??= hashPassword('dummy password that nothing matches 1A')), password);
    return false;
  }
  try {
    return await verify(stored, password);
  } catch {
    return false;
  }
}

/** 400 validation_error naming the field when `password` breaks the policy. */
export function assertPasswordPolicy(password: string, field: string): void {
  const problems = passwordProblems(password);
  if (problems.length > 0) throw errors.validation({ [field]: problems }, 'The new password is too weak');
}
