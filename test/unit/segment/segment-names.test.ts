/** Kafka's segment file names: 20-digit zero-padded base offsets. */
import { describe, expect, test } from "vitest";
import { offsetName, parseSegmentFileName, segmentFilePath } from "../../../src/segment/segment-names.js";

describe("segment names", () => {
  test("names: base offsets are zero-padded to 20 digits, as Kafka names segment files", () => {
    expect(offsetName(0)).toBe("00000000000000000000");
    expect(offsetName(42)).toBe("00000000000000000042");
    expect(offsetName(Number.MAX_SAFE_INTEGER)).toBe("00009007199254740991");
    expect(segmentFilePath("t-0", 368769, ".timeindex")).toBe("t-0/00000000000000368769.timeindex");
  });

  test("names: negative, fractional or unsafe base offsets are a RangeError", () => {
    for (const bad of [-1, 1.5, Number.NaN, 2 ** 53]) expect(() => offsetName(bad)).toThrow(RangeError);
  });

  test("names: parse accepts exactly the three suffixes with 20 digits", () => {
    expect(parseSegmentFileName("00000000000000000042.log")).toEqual({ baseOffset: 42, suffix: ".log" });
    expect(parseSegmentFileName("00000000000000000042.index")).toEqual({ baseOffset: 42, suffix: ".index" });
    expect(parseSegmentFileName("00000000000000000042.timeindex")).toEqual({ baseOffset: 42, suffix: ".timeindex" });
    for (const name of [
      "0000000000000000042.log",
      "00000000000000000042.log.deleted",
      "00000000000000000042.txnindex",
      "99999999999999999999.log",
      "x.log",
    ]) {
      expect(parseSegmentFileName(name), name).toBeUndefined();
    }
  });
});
