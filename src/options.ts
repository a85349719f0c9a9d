/**
 * The one way pagelog reads an options object: a plain object whose every key is known (a typo
 * such as `maxOpenFile` is a TypeError naming it, never a silent default), each field resolved by
 * its own check into a fully-specified object. Shared by every layer, as errors.ts is, so it
 * imports nothing.
 */

/**
 * A resolver per option: it gets the given value (`undefined` when absent or undefined, meaning
 * "the default") and returns the value to use, or throws a TypeError naming the option. The
 * mapped type makes forgetting one a compile error, and its keys are the options that exist.
 */
export type OptionResolvers<T extends object, R extends { [K in keyof T]-?: unknown } = Required<T>> = {
  readonly [K in keyof T]-?: (value: unknown) => R[K];
};

/** Every key present after resolution, `undefined` where an option has no default value. */
export type Present<T> = { [K in keyof Required<T>]: Required<T>[K] | undefined };

/**
 * Checks `options` and resolves every field, in the order the resolvers are listed (so a check
 * that depends on another field can come after it, on the result). `what` names the object in
 * errors: "LogDir.open options", "read options".
 */
export function resolveOptions<T extends object, R extends { [K in keyof T]-?: unknown } = Required<T>>(
  options: T | undefined,
  what: string,
  resolvers: OptionResolvers<T, R>,
): R {
  const given: unknown = options === undefined ? {} : options;
  const known = Object.keys(resolvers);
  checkKnownKeys(given, what, known);
  const resolved: Record<string, unknown> = {};
  for (const key of known)
    resolved[key] = (resolvers as Record<string, (value: unknown) => unknown>)[key]!(
      (given as Record<string, unknown>)[key],
    );
  return resolved as R;
}

/**
 * The first half of {@link resolveOptions}, for the codec's hot paths that read their few
 * fields in place: `options` is an object and every key of it is in `known`.
 */
export function checkKnownKeys(options: unknown, what: string, known: readonly string[]): void {
  checkOptionsObject(options, what);
  for (const key of Object.keys(options)) {
    if (!known.includes(key)) throw unknownOption(key, known, what);
  }
}

/** The keys of an options type, as {@link checkKnownKeys} takes them: forgetting one is a compile error. */
export function optionKeys<T extends object>(keys: { readonly [K in keyof Required<T>]: true }): readonly string[] {
  return Object.keys(keys);
}

/** An options argument: a plain object (not null, not an array, not a function or a string). */
export function checkOptionsObject(options: unknown, what: string): asserts options is Record<string, unknown> {
  if (typeof options !== "object" || options === null || Array.isArray(options))
    throw new TypeError(`${what} must be an object, got ${kindOf(options)}`);
}

/** The TypeError for a key no resolver knows, with the closest known one when it is a likely typo. */
export function unknownOption(key: string, known: readonly string[], what: string): TypeError {
  const near = closest(key, known);
  const hint = near === undefined ? "" : ` (did you mean ${JSON.stringify(near)}?)`;
  return new TypeError(`${what}: unknown option ${JSON.stringify(key)}${hint}; known: ${known.join(", ")}`);
}

/** The known key within edit distance 2 of `key` (case aside), if exactly one is nearest. */
function closest(key: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = 3;
  let tie = false;
  for (const candidate of known) {
    const d = editDistance(key.toLowerCase(), candidate.toLowerCase());
    if (d < bestDistance) [best, bestDistance, tie] = [candidate, d, false];
    else if (d === bestDistance) tie = true;
  }
  return tie ? undefined : best;
}

/** Levenshtein distance: insertions, deletions and substitutions each cost one. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = row;
  }
  return previous[b.length]!;
}

/** What a non-object is, for the error (as `describeValue` words it in the format layer). */
function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string") return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === "function") return "a function";
  return String(value);
}
