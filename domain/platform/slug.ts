import { randomBase62 } from './ids';

/** URL-safe slug from a display name: lowercase ASCII letters, digits and dashes. */
export function slugify(name: string): string {
  const base = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .slice(0, 48)
    .replace(/^-+|-+$/g, '');
  return base || 'merchant';
}

/** A slug with a short random suffix, for when the plain one is taken. */
export function uniqueSlug(name: string): string {
  return `${slugify(name)}-${randomBase62(6).toLowerCase()}`;
}
