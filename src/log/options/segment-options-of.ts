/*
 * The options a log's segments run with, taken from the log's: its own file so that `log.ts`
 * stays a class shell.
 */
import type { SegmentOptions } from "../../segment/segment.js";
import type { ResolvedLogOptions } from "./log-options.js";

/** A log's segment options: `offsetGaps` always there, and the log moves it (log-state.ts). */
export type LogSegmentOptions = SegmentOptions & { readonly offsetGaps: { below: number } };

/** `cleanPoint`: the checkpointed clean point, below which a compacted log's offsets may have gaps. */
export function segmentOptionsOf(options: ResolvedLogOptions, cleanPoint: number): LogSegmentOptions {
  return {
    offsetGaps: { below: cleanPoint },
    indexIntervalBytes: options.indexIntervalBytes,
    maxIndexBytes: options.maxIndexBytes,
    maxBatchBytes: options.maxBatchBytes,
    ...(options.crc32c === undefined ? {} : { crc32c: options.crc32c }),
    ...(options.policies?.lookup === undefined && options.policies?.recover === undefined
      ? {}
      : {
          policies: {
            ...(options.policies.lookup === undefined ? {} : { lookup: options.policies.lookup }),
            ...(options.policies.recover === undefined ? {} : { recover: options.policies.recover }),
          },
        }),
  };
}
