/** Chapter 1's cases: `writeVarint(value)`, the zigzag varint as an array of byte values. */
import { decodeVarint } from "../../format/index.js";
import type { CoursePolicies } from "../../policies/policy-types.js";
import { type PolicyCase, mismatch, seededRandom, show } from "./case.js";

type WriteVarint = CoursePolicies["writeVarint"];

/** The varint of `n` with no zigzag (the int32's two's complement bits, unsigned): the usual slip. */
function withoutZigzag(n: number): number[] {
  let v = n >>> 0;
  const out: number[] = [];
  while (v >= 0x80) {
    out.push((v & 0x7f) | 0x80);
    v >>>= 7;
  }
  out.push(v);
  return out;
}

/** The bytes a policy returned, or a reason they are not byte values. */
function bytesOf(got: unknown): number[] | string {
  if (!Array.isArray(got) && !(got instanceof Uint8Array)) return `expected an array of byte values, got ${show(got)}`;
  const bytes = Array.from(got as ArrayLike<unknown>);
  const bad = bytes.find((b) => !(Number.isInteger(b) && (b as number) >= 0 && (b as number) <= 255));
  return bad === undefined ? (bytes as number[]) : `${show(got)} holds ${show(bad)}, not a byte value (0-255)`;
}

function hintFor(value: number, got: number[]): string | undefined {
  if (show(got) === show(withoutZigzag(value)))
    return "no zigzag? map n to (n << 1) ^ (n >> 31) first, so small negative numbers take few bytes";
  if (got.length > 1 && got[got.length - 1]! >= 0x80) return "the last byte must not have the 0x80 continuation bit";
  if (got.slice(0, -1).some((b) => b < 0x80)) return "every byte but the last needs the 0x80 continuation bit";
  return undefined;
}

function expect(value: number, expected: number[], what: string): PolicyCase<WriteVarint> {
  return {
    name: what,
    check(writeVarint) {
      const got = bytesOf(writeVarint(value));
      if (typeof got === "string") return got;
      return show(got) === show(expected) ? undefined : mismatch(expected, got, hintFor(value, got));
    },
  };
}

/** Many int32s, each decoded back with pagelog's reader: catches what the fixed cases miss. */
const roundTrip: PolicyCase<WriteVarint> = {
  name: "round trip of 2,000 int32s through pagelog's decoder",
  check(writeVarint) {
    const random = seededRandom(12);
    for (let i = 0; i < 2000; i++) {
      const bits = 1 + Math.floor(random() * 32); // every size class, not just huge numbers
      const value = Math.floor(random() * 2 ** bits - 2 ** (bits - 1)) | 0;
      const got = bytesOf(writeVarint(value));
      if (typeof got === "string") return `${value}: ${got}`;
      let decoded: { value: number; position: number } | string;
      try {
        decoded = decodeVarint(Uint8Array.from(got), 0);
      } catch (err) {
        decoded = err instanceof Error ? err.message : String(err);
      }
      if (typeof decoded === "string" || decoded.value !== value || decoded.position !== got.length) {
        const read = typeof decoded === "string" ? `unreadable (${decoded})` : `read back as ${decoded.value}`;
        return `${value} → ${show(got)}, ${read}${hintFor(value, got) === undefined ? "" : `: ${hintFor(value, got)}`}`;
      }
    }
    return undefined;
  },
};

export const varintCases: readonly PolicyCase<WriteVarint>[] = [
  expect(0, [0], "0"),
  expect(1, [2], "1"),
  expect(-1, [1], "-1"),
  expect(63, [126], "63, the largest one-byte positive"),
  expect(-64, [127], "-64, the smallest one-byte negative"),
  expect(64, [128, 1], "64, the smallest two-byte positive"),
  expect(300, [216, 4], "300"),
  expect(2 ** 27, [128, 128, 128, 128, 1], "134217728, five bytes"),
  expect(2147483647, [254, 255, 255, 255, 15], "2147483647, int32 max"),
  expect(-2147483648, [255, 255, 255, 255, 15], "-2147483648, int32 min"),
  roundTrip,
];
