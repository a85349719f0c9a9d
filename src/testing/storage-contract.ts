/**
 * The Storage conformance suite: every promise in `storage/storage.ts` that can be observed
 * without a power cut, as tests registered with the caller's own runner. `FsStorage`,
 * `SimStorage` and `HandlePool` all run it; a third-party backend proves itself the same way,
 * under node:test, vitest or jest:
 *
 * ```ts
 * import { describe, it } from "node:test"; // or "vitest", or "@jest/globals"
 * import { storageContract } from "pagelog/testing";
 * storageContract("MyStorage", async () => ({ storage: await MyStorage.open(), cleanup: … }), { describe, it });
 * ```
 *
 * Each test gets a fresh, empty storage from `factory`; the suite closes it afterwards and then
 * calls `cleanup`. What happens at a power cut is not tested here (a real disk cannot be made to
 * lose power on cue); the crash properties test that against `SimStorage`.
 *
 * No test runner and no assertion library is imported: the runner is a parameter, and the
 * assertions are the suite's own (`storage-contract/assert.ts`), failing with the expected and
 * the actual value in the message. The sections live in `storage-contract/`, one file each.
 */
import { closeSection } from "./storage-contract/close.js";
import { directoriesSection } from "./storage-contract/directories.js";
import { durabilitySection } from "./storage-contract/durability.js";
import { filesSection } from "./storage-contract/files.js";
import { locksSection } from "./storage-contract/locks.js";
import { pathsSection } from "./storage-contract/paths.js";
import { readWriteSection } from "./storage-contract/read-write.js";
import { renameSection } from "./storage-contract/rename.js";
import { section, type StorageFactory, type TestRunner } from "./storage-contract/suite.js";

export type { StorageContractInstance, StorageFactory, TestRunner } from "./storage-contract/suite.js";

/** The sections, in the order their blocks are registered. */
const SECTIONS = [
  filesSection,
  readWriteSection,
  durabilitySection,
  directoriesSection,
  renameSection,
  pathsSection,
  locksSection,
  closeSection,
];

/**
 * Registers a `describe` block named `Storage contract: ${name}` that checks an implementation
 * against the Storage contract, with `runner`'s `describe` and `it` (pass node:test's, vitest's
 * or jest's). `factory` is called once per test.
 */
export function storageContract(name: string, factory: StorageFactory, runner: TestRunner): void {
  if (typeof runner?.describe !== "function" || typeof runner.it !== "function") {
    throw new TypeError(
      "storageContract(name, factory, runner): runner must be the { describe, it } of the test runner in use",
    );
  }
  const registrar = section(runner, factory);
  runner.describe(`Storage contract: ${name}`, () => {
    for (const register of SECTIONS) register(registrar);
  });
}
