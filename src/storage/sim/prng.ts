/**
 * A small seeded PRNG (sfc32, seeded through splitmix32). The simulator draws every fate from
 * one of these so that the same seed and the same operations give the same disk after a crash.
 * Math.random is never used: a failure must replay from its seed.
 */
export class Prng {
  #a: number;
  #b: number;
  #c: number;
  #d: number;

  constructor(seed: number) {
    if (!Number.isSafeInteger(seed)) throw new TypeError(`seed must be a safe integer, got ${String(seed)}`);
    // splitmix32 spreads any seed, including 0 and small neighbours, over the whole state.
    let s = (seed ^ Math.floor(seed / 2 ** 32)) >>> 0;
    const next = (): number => {
      s = (s + 0x9e3779b9) >>> 0;
      let z = s;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.#a = next();
    this.#b = next();
    this.#c = next();
    this.#d = next();
    for (let i = 0; i < 12; i++) this.nextU32(); // warm up, as sfc32's authors recommend
  }

  /** A uniform 32-bit unsigned integer. */
  nextU32(): number {
    const t = (((this.#a + this.#b) >>> 0) + this.#d) >>> 0;
    this.#d = (this.#d + 1) >>> 0;
    this.#a = this.#b ^ (this.#b >>> 9);
    this.#b = (this.#c + (this.#c << 3)) >>> 0;
    this.#c = ((this.#c << 21) | (this.#c >>> 11)) >>> 0;
    this.#c = (this.#c + t) >>> 0;
    return t;
  }

  /** A uniform float in [0, 1). */
  float(): number {
    return this.nextU32() / 2 ** 32;
  }

  /** A uniform integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.float() * n);
  }

  /** True with probability p. */
  chance(p: number): boolean {
    return this.float() < p;
  }
}
