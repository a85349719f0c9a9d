/**
 * The append path encodes once (format/record-batch.ts `encodeAppendBatch`): the header it hands
 * back is the one the bytes hold, and the pair assertion (write/write-checks.ts, run under
 * PAGELOG_CHECKS=all) refuses a header that is not, as PAGELOG_BUG.
 */
import { describe, expect, it } from "vitest";
import { ErrorCode } from "../../../../src/errors.js";
import { readBatchHeader } from "../../../../src/format/index.js";
import { snapshotRecords } from "../../../../src/format/record-codec.js";
import { encodeAppendBatch } from "../../../../src/format/record-batch.js";
import type { LogState } from "../../../../src/log/state/log-state.js";
import { checkEncodedBatch } from "../../../../src/log/write/write-checks.js";

const records = snapshotRecords(
  [
    { key: "k", value: "v" },
    { value: "w", timestamp: 5 },
  ],
  true,
);
const log = { maxBatchBytes: 1 << 20, crc32c: undefined };
const fresh = (n: number) => new Uint8Array(n);
const s = { name: "t-0", options: log } as unknown as LogState;

describe("encodeAppendBatch", () => {
  it("hands back the header its bytes hold, field for field", () => {
    const { bytes, header } = encodeAppendBatch(records, 42, 1_700_000_000_000, log, fresh);
    expect(header).toEqual(readBatchHeader(bytes));
    expect(header).toMatchObject({ baseOffset: 42, lastOffset: 43, recordsCount: 2, sizeInBytes: bytes.length });
  });

  it("asserts what only a bug in the log can give it: no records, a bad offset or time", () => {
    const bug = { code: ErrorCode.BUG };
    expect(() => encodeAppendBatch([], 0, 0, log, fresh)).toThrow(expect.objectContaining(bug));
    expect(() => encodeAppendBatch(records, -1, 0, log, fresh)).toThrow(expect.objectContaining(bug));
    expect(() => encodeAppendBatch(records, 0, 0.5, log, fresh)).toThrow(expect.objectContaining(bug));
  });

  it("still refuses a batch over the log's maxBatchBytes as the caller's (PAGELOG_RECORD_TOO_LARGE)", () => {
    expect(() => encodeAppendBatch(records, 0, 0, { ...log, maxBatchBytes: 70 }, fresh)).toThrow(
      expect.objectContaining({ code: ErrorCode.RECORD_TOO_LARGE }),
    );
  });
});

describe("the pair assertion of the encoder", () => {
  it("passes the batch as encoded, and refuses a header, a count or bytes that disagree", () => {
    const encoded = encodeAppendBatch(records, 42, 1_700_000_000_000, log, fresh);
    expect(() => checkEncodedBatch(s, encoded, 2)).not.toThrow();
    const bug = expect.objectContaining({ code: ErrorCode.BUG });
    expect(() => checkEncodedBatch(s, { ...encoded, header: { ...encoded.header, lastOffset: 44 } }, 2)).toThrow(bug);
    expect(() => checkEncodedBatch(s, encoded, 3)).toThrow(bug);
    const damaged = encoded.bytes.slice();
    damaged[damaged.length - 1]! ^= 1;
    expect(() => checkEncodedBatch(s, { ...encoded, bytes: damaged }, 2)).toThrow(bug);
  });
});
