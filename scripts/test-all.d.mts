/** Types for scripts/test-all.mjs (the tests import it). */
export declare const TEST_PLAN: {
  readonly beforeTests: readonly string[];
  readonly besideTests: ReadonlyArray<readonly string[]>;
  readonly afterBuild: readonly string[];
};
