import { randomBytes } from 'node:crypto';

/** Every identifier prefix of Document 1, plus internal ones (req_, whc_ …) kept in the same style. */
export type IdPrefix =
  | 'org' | 'mrc' | 'cust' | 'pfa' | 'prd' | 'ofr' | 'opr' | 'oft' | 'cks' | 'cki' | 'cke' | 'tx' | 'ref'
  | 'ord' | 'sub' | 'sbt' | 'pi' | 'tok' | 'conn' | 'ak' | 'evt' | 'req' | 'act' | 'mbr' | 'usr' | 'pp' | 'rp' | 'rn'
  | 'whc' | 'whd' | 'bs';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Random base62 text; rejection sampling keeps every character uniformly distributed. */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += ALPHABET[byte % 62];
    }
  }
  return out;
}

/** An opaque id: prefix + 24 random base62 characters (~142 bits), never a sequence. */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomBase62(24)}`;
}
