/** The seeded provider catalog (read-only). Connectors use findActiveProvider to validate what they store. */
import type { EntityManager } from '@mikro-orm/postgresql';
import { PaymentProviderSchema, type PaymentProvider } from '../../../db/entities';
import { errors } from '../../../domain/platform/errors';
import { offsetOf, type PageRequest } from '../../http/pagination';

/** Active providers only, in a stable order (display name, then id): the catalog has no "newest". */
export async function listActiveProviders(
  em: EntityManager,
  page: PageRequest,
): Promise<{ items: PaymentProvider[]; total: number }> {
  const [items, total] = await em.findAndCount(
    PaymentProviderSchema,
    { isActive: true },
    {
      orderBy: { displayName: 'asc', id: 'asc' },
      limit: page.limit,
      offset: offsetOf(page),
    },
  );
  return { items, total };
}

/** By id or slug; inactive providers are still readable (existing connectors may point at them). */
export async function getProvider(em: EntityManager, idOrSlug: string): Promise<PaymentProvider> {
  const provider = await em.findOne(
    PaymentProviderSchema,
    idOrSlug.startsWith('pp_') ? { id: idOrSlug } : { slug: idOrSlug },
  );
  if (!provider) throw errors.notFound('No such payment provider');
  return provider;
}

export async function findActiveProvider(em: EntityManager, slug: string): Promise<PaymentProvider | null> {
  return em.findOne(PaymentProviderSchema, { slug, isActive: true });
}

export async function activeProviderSlugs(em: EntityManager): Promise<string[]> {
  const providers = await em.find(PaymentProviderSchema, { isActive: true }, { orderBy: { slug: 'asc' } });
  return providers.map((provider) => provider.slug);
}
