/**
 * Turning database constraint violations into the documented 409s. The "unique among live rows" rules are
 * partial unique indexes, so a race that passes the service's own check still ends in the right error.
 */
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ApiError } from '../../domain/platform/errors';

/** The name of the unique index/constraint a failed statement violated, if that is what happened. */
export function violatedUniqueConstraint(error: unknown): string | undefined {
  if (!(error instanceof UniqueConstraintViolationException)) return undefined;
  return (error as unknown as { constraint?: string }).constraint;
}

/**
 * Flushes inside a savepoint; a unique violation of one of `conflicts`' constraints becomes its ApiError
 * (the savepoint keeps the surrounding request transaction usable). Other errors pass through.
 */
export async function flushOrConflict(em: EntityManager, conflicts: Record<string, () => ApiError>): Promise<void> {
  try {
    await em.transactional((inner) => inner.flush());
  } catch (error) {
    const mapped = conflicts[violatedUniqueConstraint(error) ?? ''];
    throw mapped ? mapped() : error;
  }
}
