/**
 * Forgot-password and its completion (POST /auth/reset-password, decided here). The answer to a forgot-password
 * request is the same 202 whether or not the address is registered; a registered one gets a link with a one-time
 * token (32 random bytes, SHA-256 at rest, PASSWORD_RESET_TOKEN_SECONDS, single use; a newer link voids older
 * ones). Per-IP throttle first (429), then at most FORGOT_PASSWORD_PER_EMAIL messages per address and window.
 */
import { randomBytes } from 'node:crypto';
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { PasswordResetTokenSchema, type PasswordResetToken } from '../../../db/entities';
import type { Config, DashboardConfig } from '../../../domain/platform/config';
import { hashSecret } from '../../../domain/platform/crypto';
import { errors } from '../../../domain/platform/errors';
import { newId } from '../../../domain/platform/ids';
import { enqueueMail } from '../../../domain/mail/mail.outbox';
import { passwordResetMail } from '../../../domain/mail/mail.templates';
import type { DashboardIdentity } from '../../http/dashboard-auth';
import { normalizeEmail, signInCandidates, updateUser } from './identities.service';
import { assertPasswordPolicy, hashPassword } from './passwords.service';
import { revokeAllSessions } from './sessions.service';
import { mayMailReset, spendForgotAttempt, spendRefusedReset, spendResetToken } from './throttle.service';

export const FORGOT_PASSWORD_MESSAGE = 'If this address has an account, a password reset link has been sent to it';

export async function forgotPassword(
  em: EntityManager,
  config: Config,
  identity: DashboardIdentity,
  input: { email: string; ip: string },
): Promise<void> {
  await spendForgotAttempt(em, config.dashboard, input.ip);
  const email = normalizeEmail(input.email);
  const accounts = await signInCandidates(em, identity, email);
  if (accounts.length === 0 || !(await mayMailReset(em, config.dashboard, identity, email))) return;
  await em.transactional(async (tx) => {
    for (const account of accounts) {
      await tx.nativeUpdate(
        PasswordResetTokenSchema,
        { identity, userId: account.id, usedAt: null },
        { usedAt: new Date() },
      );
      const token = randomBytes(32).toString('base64url');
      tx.create(PasswordResetTokenSchema, {
        id: newId('prt'),
        identity,
        userId: account.id,
        tokenHash: hashSecret(token),
        expiresAt: new Date(Date.now() + config.dashboard.resetTokenSeconds * 1000),
        usedAt: null,
      } as PasswordResetToken);
      await tx.flush();
      await enqueueMail(tx, config.encryptionKeys, {
        kind: 'password_reset',
        to: account.email,
        ...passwordResetMail({
          appUrl: config.dashboard.appUrl,
          identity,
          token,
          minutes: Math.round(config.dashboard.resetTokenSeconds / 60),
        }),
      });
    }
  });
}

const invalidLink = () => errors.unauthenticated('The reset link is invalid, expired or already used');

const usable = (row: PasswordResetToken | null): row is PasswordResetToken =>
  !!row && !row.usedAt && row.expiresAt.getTime() > Date.now();

/**
 * Sets the new password from a reset link; every session of the account ends. 401 for a bad, used or old token.
 * Cheap refusals come first: the password policy, the token's one indexed read, then the throttles (a refused token
 * per IP and per token, a usable one per token only: a valid link is never refused for guesses from its address);
 * only a usable token pays for the argon2id hash (tens of ms of CPU and 19 MiB each), and it is checked again under
 * a row lock afterwards, so two requests with one token still change the password once.
 */
export async function resetPassword(
  em: EntityManager,
  config: DashboardConfig,
  input: { token: string; new_password: string; ip: string },
): Promise<void> {
  assertPasswordPolicy(input.new_password, 'new_password');
  const tokenHash = hashSecret(input.token);
  if (!usable(await em.findOne(PasswordResetTokenSchema, { tokenHash }))) {
    await spendRefusedReset(em, config, input.ip, input.token);
    throw invalidLink();
  }
  await spendResetToken(em, config, input.token);
  const passwordHash = await hashPassword(input.new_password);
  await em.transactional(async (tx) => {
    const row = await tx.findOne(PasswordResetTokenSchema, { tokenHash }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!usable(row)) throw invalidLink();
    row.usedAt = new Date();
    await tx.flush();
    await updateUser(tx, row.identity, row.userId, {
      passwordHash,
      ...(row.identity === 'admin' ? { mustChangePassword: false } : {}),
    });
    await revokeAllSessions(tx, row.identity, row.userId);
  });
}
