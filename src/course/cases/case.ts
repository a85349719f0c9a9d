/**
 * One unit case of a policy: a name that says what it tries ("target 57 between entries 50 and
 * 60") and a check that returns undefined when the policy passes, else what went wrong
 * ("expected …, got …", with a hint naming the likely mistake).
 */
export interface PolicyCase<P> {
  readonly name: string;
  check(policy: P): string | undefined;
}

/** A value as a reader would write it: `{offset: 50, position: 4096}`, `[216, 4]`, `null`. */
export function show(value: unknown): string {
  if (value === undefined) return "undefined";
  if (value === null) return "null";
  if (typeof value === "string") return JSON.stringify(value);
  if (Array.isArray(value) || value instanceof Uint8Array) {
    const items = Array.from(value as ArrayLike<unknown>);
    const shown = items.slice(0, 12).map(show).join(", ");
    return `[${shown}${items.length > 12 ? `, … (${items.length} items)` : ""}]`;
  }
  if (typeof value === "object") {
    const fields = Object.entries(value).map(([k, v]) => `${k}: ${show(v)}`);
    return `{${fields.join(", ")}}`;
  }
  return String(value);
}

/** `expected X, got Y` plus the hint, if any. */
export function mismatch(expected: unknown, got: unknown, hint?: string): string {
  return `expected ${show(expected)}, got ${show(got)}${hint === undefined ? "" : `: ${hint}`}`;
}

/** A small deterministic PRNG (mulberry32), so every run of a case tries the same inputs. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
