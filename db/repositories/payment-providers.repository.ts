/** payment_providers: the provider catalog every merchant shares (seeded by migrations, read-only at run time). */
import type { EntityManager } from '@mikro-orm/postgresql';

/** Card brands some provider in the catalog supports, lower-cased. */
export async function catalogCardBrands(em: EntityManager): Promise<Set<string>> {
  const rows = await em.execute<{ brand: string }[]>(
    'select distinct lower(unnest(supported_card_brands)) as brand from payment_providers',
  );
  return new Set(rows.map((row) => row.brand));
}
