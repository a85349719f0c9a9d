/** What the page and the checks' worker say to each other. */

export interface CheckRequest {
  readonly source: string;
  /** The fuzz run's first seed. */
  readonly seed: number;
  readonly schedules: number;
  readonly maxOps: number;
  /** Only the course's cases, no fuzz run (the trial before the page runs the code: trial.ts). */
  readonly casesOnly?: boolean;
}

export type CheckReport =
  /** The pasted code did not compile, or had none of the four policies. */
  | { readonly kind: "error"; readonly message: string }
  /**
   * The course's unit cases: how many passed, the failures (`policy: case → why`), and those of
   * them a case's loop guard stopped (`FailedCase.loop`: the policy would have run for ever).
   */
  | {
      readonly kind: "cases";
      readonly passed: number;
      readonly failed: readonly string[];
      readonly loops: readonly string[];
    }
  | { readonly kind: "progress"; readonly schedules: number; readonly total: number; readonly powerCuts: number }
  /** The fuzz run's end: the first failing schedule's seed and what broke, if any. */
  | {
      readonly kind: "fuzz";
      readonly schedules: number;
      readonly powerCuts: number;
      readonly failure: { readonly seed: number; readonly message: string; readonly replay: string } | undefined;
    };
