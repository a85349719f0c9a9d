/**
 * What a schedule is: its steps, the record shapes they append, the log settings and disk
 * geometry it draws, and where its power cuts fall (schedule.ts generates them).
 */
import type { CrashChooser, PendingState } from "../../storage/sim-storage.js";
import type { ExtraStep, LogTuning } from "./adapter.js";

/** The shape of one generated record: the engine fills in a unique id as its value. */
export interface RecordShape {
  readonly valueBytes: number;
  readonly keyed: boolean;
  readonly headers: number;
  /** null: the log stamps it; else the record's timestamp is the clock's time plus this. */
  readonly tsDelta: number | null;
  /** The compaction workload's keys: one of a few (`k<keyId>`), so keys repeat. Else a unique key if `keyed`. */
  readonly keyId?: number;
  /** A tombstone (a null value); only with `keyId`. */
  readonly tombstone?: boolean;
}

export type Step =
  | { readonly kind: "append"; readonly records: readonly RecordShape[] }
  /** Several appends issued at once (not awaited one by one): pagelog sends them as one group commit. */
  | { readonly kind: "appendGroup"; readonly calls: ReadonlyArray<readonly RecordShape[]> }
  | { readonly kind: "flush" }
  | { readonly kind: "truncate"; readonly back: number }
  | { readonly kind: "deleteBefore"; readonly forward: number }
  | { readonly kind: "checkpoint" }
  /** `compact()`: the log cleaner runs now (the compaction workload only). */
  | { readonly kind: "compact" }
  | { readonly kind: "reopen" }
  /** Cut the power now (nothing in flight), reboot, reopen, check, and carry on. */
  | { readonly kind: "crash" }
  /** Make the next storage `op` fail with `code`: the call that meets it must fail loudly. */
  | { readonly kind: "fault"; readonly op: "sync" | "write" | "syncDir"; readonly code: "EIO" | "ENOSPC" }
  | { readonly kind: "clock"; readonly ms: number }
  | { readonly kind: "writeback"; readonly pages: number };

export interface Schedule {
  /** Seeds the simulator: write-back choices and every crash fate. */
  readonly seed: number;
  readonly steps: readonly Step[];
  /**
   * The number each step had in the schedule it was taken from (a shrunk case or `--steps`), so
   * a report says `#6` for the step the full schedule calls `#6`; absent, steps count from 0.
   */
  readonly stepNumbers?: readonly number[];
  /** The log settings the schedule drew (an adapter may use them). */
  readonly tuning: LogTuning;
  readonly pageSize: number;
  readonly sectorSize: number;
  /** Probability of a random page write-back before each storage operation. */
  readonly writeback: number;
  /**
   * Where the first power cut falls, as a fraction of the workload's storage operations (a dry
   * run with the same seed counts them): 0 cuts before the first, 0.999 just before the last.
   */
  readonly cutAt: number;
  /**
   * The compaction workload: `cutAt` counts only the operations of the `compact` calls (the dry
   * run finds them), so that the cut falls inside a cleaning and its swap.
   */
  readonly cutInCleaning?: boolean;
  /** Further cuts inside the reopen's own recovery, by operation count, one per level. */
  readonly nestedCuts: readonly number[];
  /**
   * Decides the fates of the first power cut after the workload (default: the seeded random
   * chooser), given what was pending: how the exhaustive test enumerates crash states.
   */
  readonly firstCrash?: (pending: PendingState) => CrashChooser;
}

/** Which workload generator a seed runs through. */
export type Workload = "swarm" | "classic" | "compaction";

export interface GenerateOptions {
  /** At most this many steps. @defaultValue 30 */
  readonly maxOps?: number;
  /** The extra steps the adapter takes. @defaultValue none */
  readonly extraSteps?: readonly ExtraStep[];
  /**
   * `"swarm"`: each seed first draws a focus that reweights the steps and settings (swarm
   * testing), so every recovery path is reached within a few dozen schedules. `"classic"`: the
   * one mix of the first engine, which the regression seeds recorded before the swarm replay.
   * `"compaction"`: a compacted log (compaction-workload.ts): `compact` steps, a few keys that
   * repeat, tombstones, and clock jumps past `deleteRetentionMs`.
   * @defaultValue "swarm"
   */
  readonly workload?: Workload;
}
