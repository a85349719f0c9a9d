/**
 * The contract suite itself: it registers its checks through any `{ describe, it }`, its own
 * assertions say what was expected and what came, and a storage that breaks a promise fails the
 * check that names it (so the suite cannot pass vacuously).
 */
import { describe, expect, it } from "vitest";
import { ErrorCode, PagelogError } from "../../../src/errors.js";
import { SimStorage } from "../../../src/storage/sim-storage.js";
import type { Storage } from "../../../src/storage/storage.js";
import { storageContract } from "../../../src/testing/storage-contract.js";
import {
  assertEqual,
  assertFails,
  assertRejects,
  ContractAssertionError,
} from "../../../src/testing/storage-contract/assert.js";
import type { StorageFactory, TestRunner } from "../../../src/testing/storage-contract/suite.js";

// Type checks only (tsc): node:test's, vitest's and jest's `{ describe, it }` fit TestRunner.
type NodeTest = typeof import("node:test");
export const fromNodeTest = (t: NodeTest): TestRunner => ({ describe: t.describe, it: t.it });
export const fromVitest = (): TestRunner => ({ describe, it });
/** The shape of jest's globals (`@jest/globals`), which this repo does not install. */
interface JestLike {
  describe(blockName: string | number | (() => unknown), blockFn: () => void): void;
  it(
    testName: string,
    fn?: ((done: (reason?: string | Error) => void) => void | undefined) | (() => PromiseLike<unknown>),
    timeout?: number,
  ): void;
}
export const fromJest = (j: JestLike): TestRunner => ({ describe: j.describe, it: j.it });

/** The number of checks the contract registers per storage. It may grow; it must never drop. */
const CONTRACT_TESTS = 77;

interface Collected {
  name: string;
  fn: () => Promise<void>;
}

/**
 * Registers the contract with a runner that collects the tests instead of running them, and
 * returns promises from both calls as node:test's do (the suite must ignore them).
 */
function collect(factory: StorageFactory): { tests: Collected[]; suites: string[] } {
  const tests: Collected[] = [];
  const suites: string[] = [];
  const path: string[] = [];
  storageContract("collected", factory, {
    describe(name, fn) {
      suites.push(name);
      path.push(name);
      fn();
      path.pop();
      return Promise.resolve();
    },
    it(name, fn) {
      expect(fn.length).toBe(0); // jest and node:test would take a parameter as a done callback
      tests.push({ name: [...path, name].join(" > "), fn });
      return Promise.resolve();
    },
  });
  return { tests, suites };
}

/** Runs every collected test; the failures by test name, with their error. */
async function failures(tests: Collected[]): Promise<Map<string, unknown>> {
  const failed = new Map<string, unknown>();
  for (const t of tests) {
    await t.fn().catch((err: unknown) => failed.set(t.name, err));
  }
  return failed;
}

/** SimStorage with some methods replaced. */
function simWith(overrides: Partial<Storage>): Storage {
  const sim = new SimStorage({ seed: 1 });
  const methods = ["open", "stat", "list", "mkdir", "remove", "rename", "syncDir", "lock", "close"] as const;
  const storage = Object.fromEntries(methods.map((m) => [m, sim[m].bind(sim)])) as unknown as Storage;
  return Object.assign(storage, overrides);
}

/** The error a call throws (synchronously or by rejecting). */
async function caught(action: () => unknown): Promise<unknown> {
  try {
    await action();
  } catch (err) {
    return err;
  }
  throw new Error("expected a failure");
}

describe("storageContract", () => {
  it(`registers ${CONTRACT_TESTS} tests with distinct names, and all pass on SimStorage`, async () => {
    const { tests, suites } = collect(() => new SimStorage({ seed: 1 }));
    expect(suites[0]).toBe("Storage contract: collected");
    expect(tests).toHaveLength(CONTRACT_TESTS);
    expect(new Set(tests.map((t) => t.name)).size).toBe(CONTRACT_TESTS);
    expect([...(await failures(tests)).keys()]).toEqual([]);
  });

  it("accepts a factory giving a storage, { storage, cleanup }, or a promise of either", async () => {
    let cleanups = 0;
    const factories: StorageFactory[] = [
      () => new SimStorage({ seed: 1 }),
      async () => new SimStorage({ seed: 1 }),
      () => ({ storage: new SimStorage({ seed: 1 }), cleanup: async () => void cleanups++ }),
      async () => ({ storage: new SimStorage({ seed: 1 }) }),
    ];
    for (const factory of factories) {
      const { tests } = collect(factory);
      expect([...(await failures(tests.slice(0, 5))).keys()]).toEqual([]);
    }
    expect(cleanups).toBe(5);
  });

  it("a storage that breaks a promise fails the check naming it, with expected and actual", async () => {
    const unsorted = (): Storage => simWith({ list: async () => ["b", "a"] });
    const failed = await failures(collect(unsorted).tests);
    const name = "Storage contract: collected > list > list: names sorted by UTF-16 code unit, directories included";
    expect(failed.has(name)).toBe(true);
    const err = failed.get(name);
    expect(err).toBeInstanceOf(ContractAssertionError);
    expect((err as Error).message).toBe(
      'list(""): expected ["10", "9", "B", "_x", "a", "c", "dir", "~z"], got ["b", "a"] ' +
        '(at [0]: expected "10", got "b")',
    );
  });

  it("a check that expected a code says which code came instead", async () => {
    const wrongCode = (): Storage =>
      simWith({
        lock: async () => {
          throw new PagelogError("busy", ErrorCode.IO);
        },
      });
    const failed = await failures(collect(wrongCode).tests);
    const err = failed.get("Storage contract: collected > lock > lock: in a missing directory is NOT_FOUND");
    expect((err as Error).message).toBe(
      'lock("missing/LOCK"): expected a rejection with a PagelogError with code PAGELOG_NOT_FOUND, ' +
        "got a PagelogError with code PAGELOG_IO (busy)",
    );
  });

  it("closes the storage and cleans up after a failing test, and reports its error, not teardown's", async () => {
    const events: string[] = [];
    const { tests } = collect(() => ({
      storage: simWith({
        list: async () => {
          throw new Error("list broke");
        },
        close: async () => {
          events.push("close");
          throw new Error("close broke");
        },
      }),
      cleanup: async () => void events.push("cleanup"),
    }));
    const listTest = tests.find((t) => t.name.endsWith("list: an empty root is empty"))!;
    expect(((await caught(listTest.fn)) as Error).message).toMatch(/list broke/);
    expect(events).toEqual(["close", "cleanup"]);
    // With the test passing, the teardown's error is the one reported.
    const closeOnly = tests.find((t) => t.name.endsWith("lock: different paths are independent"))!;
    expect(((await caught(closeOnly.fn)) as Error).message).toBe("close broke");
  });

  it("without a runner, says what to pass", () => {
    expect(() => storageContract("x", () => new SimStorage(), undefined as never)).toThrow(/\{ describe, it \}/);
  });
});

describe("the contract's assertions", () => {
  it("assertEqual: passes on deep equality of bytes, arrays, plain objects and null", () => {
    assertEqual(new Uint8Array([1, 2]), new Uint8Array([1, 2]), "bytes");
    assertEqual(["a", ["b"]], ["a", ["b"]], "arrays");
    assertEqual({ kind: "file", size: 0 }, { kind: "file", size: 0 }, "stat");
    assertEqual(null, null, "nothing");
    assertEqual(Number.NaN, Number.NaN, "NaN");
  });

  it("assertEqual: the message names the value and shows expected, actual and where they differ", () => {
    const fail = (actual: unknown, expected: unknown): ContractAssertionError => {
      try {
        assertEqual(actual, expected, "what");
      } catch (err) {
        return err as ContractAssertionError;
      }
      throw new Error("no failure");
    };
    expect(fail("ab\0", "abc").message).toBe('what: expected "abc", got "ab\\u0000"');
    expect(fail(new Uint8Array([1, 2, 3]), new Uint8Array([1, 9, 3])).message).toBe(
      "what: expected Uint8Array(3) [1, 9, 3], got Uint8Array(3) [1, 2, 3] (byte [1] expected 9, got 2)",
    );
    expect(fail(new Uint8Array(20), new Uint8Array(21)).message).toMatch(
      /^what: expected Uint8Array\(21\) \[0, .*, …\], got Uint8Array\(20\) .* \(length expected 21, got 20\)$/,
    );
    expect(fail({ kind: "file", size: 3 }, { kind: "file", size: 5 }).message).toBe(
      'what: expected { kind: "file", size: 5 }, got { kind: "file", size: 3 } (at .size: expected 5, got 3)',
    );
    expect(fail(null, { kind: "dir", size: 0 }).message).toBe('what: expected { kind: "dir", size: 0 }, got null');
    const err = fail([1], [2]);
    expect([err.name, err.code, err.actual, err.expected, err.showDiff]).toEqual([
      "AssertionError",
      "ERR_ASSERTION",
      [1],
      [2],
      true,
    ]);
  });

  it("assertRejects: a code or a class; resolving, the wrong error and a synchronous throw all fail", async () => {
    await assertRejects(() => Promise.reject(new PagelogError("x", ErrorCode.LOCKED)), ErrorCode.LOCKED, "lock");
    await assertRejects(() => Promise.reject(new TypeError("x")), TypeError, "open");
    const messages = await Promise.all([
      caught(() => assertRejects(() => Promise.resolve(1), ErrorCode.LOCKED, "lock")),
      caught(() => assertRejects(() => Promise.reject(new RangeError("neg")), TypeError, "open")),
      caught(() =>
        assertRejects(
          () => {
            throw new PagelogError("gone", ErrorCode.CLOSED);
          },
          ErrorCode.CLOSED,
          "stat",
        ),
      ),
    ]).then((errors) => errors.map((e) => (e as Error).message));
    expect(messages).toEqual([
      "lock: expected a rejection with a PagelogError with code PAGELOG_LOCKED, but the call resolved",
      "open: expected a rejection with a TypeError, got RangeError: neg",
      "stat: expected a rejection with a PagelogError with code PAGELOG_CLOSED, but the call threw synchronously: " +
        "a PagelogError with code PAGELOG_CLOSED (gone)",
    ]);
  });

  it("assertFails: a synchronous throw of the class counts, as for argument checks", async () => {
    await assertFails(
      () => {
        throw new RangeError("negative");
      },
      RangeError,
      "read(-1, 1)",
    );
    const resolved = await caught(() => assertFails(() => Promise.resolve(), RangeError, "read(-1, 1)"));
    expect((resolved as Error).message).toBe(
      "read(-1, 1): expected a failure with a RangeError, but the call resolved",
    );
  });
});
