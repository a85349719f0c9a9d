/*
 * A tiny deterministic generator for the crash properties that draw their own schedules: the
 * whole schedule follows from its seed, so a printed seed replays it exactly.
 */

/** `next(n)` draws an integer in [0, n) (xorshift32; seed 0 is taken as 1). */
export function rng(seed: number): (n: number) => number {
  let x = seed >>> 0 || 1;
  return (n) => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) % n;
  };
}
