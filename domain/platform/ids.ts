import { createHash, randomFillSync } from 'node:crypto';

/** Every identifier prefix of Document 1, plus internal ones (req_, whc_ …) kept in the same style. */
export type IdPrefix =
  | 'org'
  | 'mrc'
  | 'cust'
  | 'clk'
  | 'pfa'
  | 'prd'
  | 'ofr'
  | 'opr'
  | 'oft'
  | 'cks'
  | 'cki'
  | 'cke'
  | 'tx'
  | 'ref'
  | 'ord'
  | 'sub'
  | 'sbt'
  | 'pi'
  | 'tok'
  | 'conn'
  | 'ak'
  | 'evt'
  | 'req'
  | 'act'
  | 'mbr'
  | 'usr'
  | 'pp'
  | 'rp'
  | 'rn'
  | 'whc'
  | 'whd'
  | 'bs'
  | 'omb'
  | 'rtk'
  | 'rtf'
  | 'prt'
  | 'mail'
  | 'iwl';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Base62 text from a byte source; rejection sampling keeps every character uniformly distributed. */
function base62(length: number, nextBytes: (round: number) => Buffer): string {
  let out = '';
  for (let round = 0; out.length < length; round += 1) {
    for (const byte of nextBytes(round)) {
      if (byte < 248 && out.length < length) out += ALPHABET[byte % 62];
    }
  }
  return out;
}

/**
 * Random bytes come from a pool refilled 4 KiB at a time (as Node's randomUUID caches its entropy): one RNG call per
 * ~40 ids instead of a call and a Buffer per id — every request draws one for its req_ id. Each byte is used once.
 */
const POOL_BYTES = 4096;
let pool = Buffer.alloc(0);
let poolOffset = 0;

function randomPoolBytes(count: number): Buffer {
  if (poolOffset + count > pool.length) {
    pool = randomFillSync(Buffer.allocUnsafe(Math.max(POOL_BYTES, count)));
    poolOffset = 0;
  }
  poolOffset += count;
  return pool.subarray(poolOffset - count, poolOffset);
}

export function randomBase62(length: number): string {
  return base62(length, () => randomPoolBytes(length * 2));
}

/** An opaque id: prefix + 24 random base62 characters (~142 bits), never a sequence. */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomBase62(24)}`;
}

/**
 * The same opaque id every time for the same seed (a SHA-256 stream of it): for a resource that a retried request
 * must find again rather than create twice (a charge retried with its Idempotency-Key after a lost answer).
 */
export function idFromSeed(prefix: IdPrefix, seed: string): string {
  return `${prefix}_${base62(24, (round) => createHash('sha256').update(`${round}:${prefix}:${seed}`).digest())}`;
}
