/** Types for scripts/lint-lanes.mjs (the tests import it). */
/** One step of a lane: its label, the command and its arguments. */
export type LintStep = readonly [label: string, command: string, args: readonly string[]];
export declare const PRETTIER_GLOBS: readonly string[];
export declare const LANES: ReadonlyArray<readonly LintStep[]>;
export declare function missingChecks(lanes: ReadonlyArray<readonly LintStep[]>): string[];
/** Runs a lane's steps in order; resolves with the label of the step that failed, or undefined. */
export declare function runLane(steps: readonly LintStep[], verbose: boolean): Promise<string | undefined>;
