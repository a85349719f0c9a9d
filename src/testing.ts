/**
 * pagelog/testing: the suites and harnesses that prove a storage (and a log) correct.
 * Imports no test runner: `storageContract` registers its tests with the `{ describe, it }` it is
 * given (node:test's, vitest's or jest's), and `crashTest` runs under any runner, or none.
 */
export { storageContract } from "./testing/storage-contract.js";
export type { StorageContractInstance, StorageFactory, TestRunner } from "./testing/storage-contract.js";
export { crashTest, CrashTestError } from "./testing/crash-test.js";
export type {
  CrashTestOptions,
  CrashTestProgress,
  CrashTestSummary,
  CrashTestViolation,
} from "./testing/crash-test.js";
export type {
  AdapterLog,
  CrashRecord,
  CrashRecordRead,
  CrashTestAdapter,
  CrashTestContext,
  ExtraStep,
  FailedCall,
  LogTuning,
  SelfCheckMoment,
} from "./testing/engine/adapter.js";
export { pagelogAdapter } from "./testing/pagelog-adapter.js";
