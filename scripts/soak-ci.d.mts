/** Types for scripts/soak-ci.mjs (the tests import it). */
/** `--minutes N` from `argv` (a positive number), or a TypeError naming what is wrong. */
export declare function budgetMinutes(argv: readonly string[]): number;
