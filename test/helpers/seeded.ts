/** A tiny seeded PRNG (mulberry32) for property tests: the same seed always gives the same sequence. */
export function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Helpers over a generator: an integer in [min, max], one element, a boolean with probability p. */
export function pick(random: () => number) {
  return {
    int: (min: number, max: number) => min + Math.floor(random() * (max - min + 1)),
    one: <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)],
    chance: (p: number) => random() < p,
  };
}
