/**
 * What every section of the contract suite shares: the runner's `describe`/`it`, a fresh storage
 * per test (closed and cleaned up after it, whatever the test did), and small file helpers.
 */
import type { Storage, StorageFile } from "../../storage/storage.js";

/**
 * The two calls the suite needs from a test runner. node:test's, vitest's and jest's
 * `{ describe, it }` all fit: the suite calls `describe(name, fn)` with a synchronous `fn` and
 * `it(name, fn)` with an async `fn` that takes no argument (so no runner mistakes it for a
 * done-callback test), passes no timeout or options, and ignores what either returns.
 */
export interface TestRunner {
  /** Registers a group of tests; `fn` registers them, synchronously. */
  describe(name: string, fn: () => void): unknown;
  /** Registers one test; `fn` runs it. */
  it(name: string, fn: () => Promise<void>): unknown;
}

/** What a `StorageFactory` may return instead of a bare storage: the storage, and how to clean up after the test. */
export interface StorageContractInstance {
  /** A fresh storage whose root is empty. */
  storage: Storage;
  /** Runs after the suite has closed `storage` (remove a temp directory, …). */
  cleanup?: () => Promise<void>;
}

/**
 * Makes one fresh, empty storage per test (see `storageContract`): the storage itself, or
 * `{ storage, cleanup }` when something must be removed after the test, or a promise of either.
 */
export type StorageFactory = () => Storage | StorageContractInstance | Promise<Storage | StorageContractInstance>;

/** The body of one contract test, given its fresh storage. */
type ContractTest = (s: Storage) => Promise<void>;

/** What a section registers its tests with. */
export interface Section {
  /** The runner's `describe`, for the section's block. */
  describe(name: string, fn: () => void): void;
  /** Registers one test that runs `body` on a fresh storage from the factory. */
  test(name: string, body: ContractTest): void;
}

function isStorage(made: Storage | StorageContractInstance): made is Storage {
  return typeof (made as Partial<Storage>).open === "function";
}

/**
 * Runs `body` on a fresh storage, then closes the storage and calls `cleanup`, both even when
 * `body` failed. The first failure wins: a test's own failure is not hidden by a teardown error.
 */
async function runOnFreshStorage(factory: StorageFactory, body: ContractTest): Promise<void> {
  const made = await factory();
  const instance: StorageContractInstance = isStorage(made) ? { storage: made } : made;
  const failures: unknown[] = [];
  for (const step of [() => body(instance.storage), () => instance.storage.close(), async () => instance.cleanup?.()]) {
    try {
      await step();
    } catch (err) {
      failures.push(err);
    }
  }
  if (failures.length > 0) throw failures[0];
}

/** The {@link Section} for a runner and a factory. */
export function section(runner: TestRunner, factory: StorageFactory): Section {
  return {
    describe(name, fn) {
      runner.describe(name, () => {
        fn();
      });
    },
    test(name, body) {
      // No parameter: jest and node:test read a test function's arity as "takes a done callback".
      runner.it(name, async () => {
        await runOnFreshStorage(factory, body);
      });
    },
  };
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** UTF-8 bytes of a string, so expectations read as text. */
export function bytes(text: string): Uint8Array {
  return encoder.encode(text);
}

/** A file's bytes as text; NULs show as `\u0000` in a failure message, so a gap of zeros is visible. */
export function text(data: Uint8Array): string {
  return decoder.decode(data);
}

/** Everything in an open file, as text. */
export async function readAll(file: StorageFile): Promise<string> {
  return text(await file.read(0, await file.size()));
}

/** Creates (or overwrites from 0) a file holding `content`, and closes it. */
export async function createFile(s: Storage, path: string, content: string): Promise<void> {
  const f = await s.open(path, { create: true });
  await f.write(0, bytes(content));
  await f.close();
}

/** The content of the file at `path`, as text. */
export async function contentOf(s: Storage, path: string): Promise<string> {
  const f = await s.open(path);
  try {
    return await readAll(f);
  } finally {
    await f.close();
  }
}
