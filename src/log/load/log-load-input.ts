/**
 * What opening a log starts from. Its own file so that the loader and its two halves (the plan,
 * the apply) all import it and neither half imports the loader back.
 */
import type { SegmentOptions } from "../../segment/segment.js";
import type { Storage } from "../../storage/storage.js";
import type { ProgressListener } from "../options/recovery-progress.js";

export interface LoadInput {
  readonly storage: Storage;
  /** The partition directory. */
  readonly dir: string;
  readonly segmentOptions: SegmentOptions;
  readonly clean: boolean;
  /** From `recovery-point-offset-checkpoint`; undefined (absent or malformed) means 0. */
  readonly recoveryPoint: number | undefined;
  /** From `log-start-offset-checkpoint`. */
  readonly logStartOffset: number | undefined;
  /** Told how far an unclean open's walk got (recovery-progress.ts). */
  readonly onProgress?: ProgressListener | undefined;
}
