/**
 * The contract suite's own assertions: no test runner and no assertion library, so the suite
 * runs under node:test, vitest, jest or anything else that offers `describe` and `it`. A failure
 * is an {@link ContractAssertionError} whose message names what was checked and shows the
 * expected and the actual value; it also carries both as `expected` and `actual`, which runners
 * (vitest, jest, node:test) use to print a diff.
 */
import { type ErrorCode, PagelogError } from "../../errors.js";

/**
 * A failed contract check. `name` and `code` match node's `AssertionError`, so runners report it
 * alike; `showDiff` tells vitest and jest whether `expected` and `actual` are worth a diff (two
 * values compared: yes; an error code against the error thrown: no, the message says it all).
 */
export class ContractAssertionError extends Error {
  override readonly name = "AssertionError";
  readonly code = "ERR_ASSERTION";
  readonly actual: unknown;
  readonly expected: unknown;
  readonly showDiff: boolean;

  constructor(
    message: string,
    values: { actual: unknown; expected: unknown; showDiff: boolean },
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.actual = values.actual;
    this.expected = values.expected;
    this.showDiff = values.showDiff;
  }
}

/** At most this many elements of an array or bytes are shown in a message. */
const SHOWN = 16;

/** A value as a failure message shows it: strings quoted (NUL as `\u0000`), bytes and arrays in brackets. */
function show(value: unknown): string {
  if (value instanceof Uint8Array) {
    const head = Array.from(value.subarray(0, SHOWN), String).join(", ");
    return `Uint8Array(${value.length}) [${head}${value.length > SHOWN ? ", …" : ""}]`;
  }
  if (Array.isArray(value)) {
    const head = value.slice(0, SHOWN).map(show).join(", ");
    return `[${head}${value.length > SHOWN ? ", …" : ""}]`;
  }
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "bigint") return `${value}n`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value).map(([k, v]) => `${k}: ${show(v)}`);
    return `{ ${entries.join(", ")} }`;
  }
  return String(value);
}

/**
 * Where `actual` first differs from `expected` (deep: bytes element by element, arrays, plain
 * objects by their own keys, everything else by `Object.is`), as a path such as `[3]` or `.size`
 * plus the two values there; `undefined` when they are equal.
 */
function firstDifference(actual: unknown, expected: unknown, at = ""): string | undefined {
  if (Object.is(actual, expected)) return undefined;
  const here = (why: string): string => `${at === "" ? "" : `at ${at}: `}${why}`;
  const values = (): string => `expected ${show(expected)}, got ${show(actual)}`;
  if (expected instanceof Uint8Array || actual instanceof Uint8Array) {
    if (!(expected instanceof Uint8Array && actual instanceof Uint8Array)) return here(values());
    const common = Math.min(expected.length, actual.length);
    for (let i = 0; i < common; i++) {
      if (expected[i] !== actual[i]) return here(`byte [${i}] expected ${expected[i]}, got ${actual[i]}`);
    }
    return expected.length === actual.length ? undefined : here(lengths(expected, actual));
  }
  if (Array.isArray(expected) || Array.isArray(actual)) {
    if (!(Array.isArray(expected) && Array.isArray(actual))) return here(values());
    const common = Math.min(expected.length, actual.length);
    for (let i = 0; i < common; i++) {
      const diff = firstDifference(actual[i], expected[i], `${at}[${i}]`);
      if (diff !== undefined) return diff;
    }
    return expected.length === actual.length ? undefined : here(lengths(expected, actual));
  }
  if (isPlainObject(expected) && isPlainObject(actual)) {
    const keys = new Set([...Object.keys(expected), ...Object.keys(actual)]);
    for (const key of [...keys].sort()) {
      const diff = firstDifference(actual[key], expected[key], `${at}.${key}`);
      if (diff !== undefined) return diff;
    }
    return undefined;
  }
  return here(values());
}

function lengths(expected: { length: number }, actual: { length: number }): string {
  return `length expected ${expected.length}, got ${actual.length}`;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== "object") return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * Asserts that `actual` deeply equals `expected` (see {@link firstDifference}). `what` names the
 * value checked, for the message: `list(""): expected ["a", "b"], got ["a"] (length expected 2, got 1)`.
 */
export function assertEqual<T>(actual: T, expected: T, what: string): void {
  const diff = firstDifference(actual, expected);
  if (diff === undefined) return;
  const values = `expected ${show(expected)}, got ${show(actual)}`;
  const detail = diff === values ? "" : ` (${diff})`;
  throw new ContractAssertionError(`${what}: ${values}${detail}`, { actual, expected, showDiff: true });
}

/** A class of programmer-mistake errors: `TypeError`, `RangeError`. */
type ErrorClass = new (...args: never[]) => Error;

/** What a call was expected to fail with: a `PagelogError` code, or an error class. */
function describeExpected(expected: ErrorCode | ErrorClass): string {
  return typeof expected === "string" ? `a PagelogError with code ${expected}` : `a ${expected.name}`;
}

function describeError(error: unknown): string {
  if (error instanceof PagelogError) return `a PagelogError with code ${error.code} (${error.message})`;
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return show(error);
}

function matches(error: unknown, expected: ErrorCode | ErrorClass): boolean {
  if (typeof expected === "string") return error instanceof PagelogError && error.code === expected;
  return error instanceof expected;
}

async function settle(promise: unknown): Promise<{ rejected: boolean; error: unknown }> {
  try {
    await promise;
    return { rejected: false, error: undefined };
  } catch (error) {
    return { rejected: true, error };
  }
}

/**
 * Asserts that `action` returns a promise that rejects with a `PagelogError` carrying `expected`
 * (a code), or with an instance of `expected` (an error class). A synchronous throw fails the
 * assertion: every Storage method returns a promise, and a caller's `.catch()` would miss it.
 * `what` names the call, for the message.
 */
export async function assertRejects(
  action: () => Promise<unknown>,
  expected: ErrorCode | ErrorClass,
  what: string,
): Promise<void> {
  let promise: Promise<unknown>;
  try {
    promise = action();
  } catch (error) {
    const threw = `but the call threw synchronously: ${describeError(error)}`;
    throw new ContractAssertionError(
      `${what}: expected a rejection with ${describeExpected(expected)}, ${threw}`,
      { actual: error, expected, showDiff: false },
      { cause: error },
    );
  }
  await checkFailure(await settle(promise), expected, what, "a rejection");
}

/**
 * Like {@link assertRejects}, but a synchronous throw counts too: for programmer mistakes (a
 * wrong argument type, a negative length), which may be caught before any promise exists.
 */
export async function assertFails(action: () => Promise<unknown>, expected: ErrorClass, what: string): Promise<void> {
  let promise: unknown;
  try {
    promise = action();
  } catch (error) {
    promise = Promise.reject(error);
  }
  await checkFailure(await settle(promise), expected, what, "a failure");
}

async function checkFailure(
  outcome: { rejected: boolean; error: unknown },
  expected: ErrorCode | ErrorClass,
  what: string,
  kind: string,
): Promise<void> {
  if (!outcome.rejected) {
    const message = `${what}: expected ${kind} with ${describeExpected(expected)}, but the call resolved`;
    throw new ContractAssertionError(message, { actual: undefined, expected, showDiff: false });
  }
  if (!matches(outcome.error, expected)) {
    throw new ContractAssertionError(
      `${what}: expected ${kind} with ${describeExpected(expected)}, got ${describeError(outcome.error)}`,
      { actual: outcome.error, expected, showDiff: false },
      { cause: outcome.error },
    );
  }
}
