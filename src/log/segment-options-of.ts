/*
 * The options a log's segments run with, taken from the log's: its own file so that `log.ts`
 * stays a class shell.
 */
import type { SegmentOptions } from "../segment/segment.js";
import type { ResolvedLogOptions } from "./log-options.js";

export function segmentOptionsOf(options: ResolvedLogOptions): SegmentOptions {
  return {
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
