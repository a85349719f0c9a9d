/**
 * pagelog/testing: the suites and harnesses that prove a storage (and, later, a log) correct.
 * Imports vitest: use it from a vitest test file.
 */
export { storageContract } from "./testing/storage-contract.js";
export type { StorageFactory } from "./testing/storage-contract.js";
export { crashTest, CrashTestError } from "./testing/crash-test.js";
export type {
  AdapterLog,
  CrashTestAdapter,
  CrashTestOptions,
  CrashTestProgress,
  CrashTestSummary,
  CrashTestViolation,
} from "./testing/crash-test.js";
export { pagelogAdapter } from "./testing/pagelog-adapter.js";
