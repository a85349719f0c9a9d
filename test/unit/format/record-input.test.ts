/**
 * What a record's fields may be, beyond their types: headers as a plain object or an array
 * (a Map or a Set is refused, never read as no headers), and strings that have a UTF-8 form (a
 * lone surrogate would be written as U+FFFD and read back as something nobody appended).
 */
import { describe, expect, it } from "vitest";
import { decodeBatchSync, encodeBatch, type RecordInput } from "../../../src/format/api.js";

const text = (b: Uint8Array | null) => (b === null ? null : new TextDecoder().decode(b));

function encodeError(record: unknown): unknown {
  try {
    encodeBatch([record as RecordInput], { baseOffset: 0, timestamp: 1 });
  } catch (err) {
    return err;
  }
  return undefined;
}

function expectRefused(record: unknown, mention: string): void {
  const err = encodeError(record);
  expect(err, `${mention}: expected a TypeError`).toBeInstanceOf(TypeError);
  expect((err as Error).message).toContain(mention);
}

describe("headers: a plain object or an array", () => {
  it("a Map, a Set, another iterable or built-in object is a TypeError naming records[i].headers", () => {
    class Collection {
      *[Symbol.iterator]() {
        yield { key: "k", value: "v" };
      }
    }
    function* generated() {
      yield { key: "k", value: "v" };
    }
    for (const headers of [
      new Map([["k", "v"]]),
      new Map(),
      new Set([{ key: "k", value: "v" }]),
      new WeakMap(),
      new Date(0),
      new Uint8Array([1]),
      new Collection(),
      generated(),
      Promise.resolve([]),
    ]) {
      expectRefused({ value: "x", headers }, "records[0].headers");
    }
    expectRefused({ value: "x", headers: new Map([["k", "v"]]) }, "Map");
  });

  it("plain objects (null prototype, class instances' own fields) and arrays are read as before", () => {
    class Fields {
      a = "1";
    }
    const bare = Object.create(null) as Record<string, string>;
    bare.b = "2";
    const records: RecordInput[] = [
      { value: "x", headers: { k: "v", n: null } },
      { value: "x", headers: bare },
      { value: "x", headers: new Fields() as unknown as Record<string, string> },
      {
        value: "x",
        headers: [
          { key: "d", value: "1" },
          { key: "d", value: "2" },
        ],
      },
      { value: "x", headers: [] },
      { value: "x", headers: {} },
    ];
    const decoded = decodeBatchSync(encodeBatch(records, { baseOffset: 0, timestamp: 1 })).records;
    expect(decoded.map((r) => r.headers.map((h) => [h.key, text(h.value)]))).toEqual([
      [
        ["k", "v"],
        ["n", null],
      ],
      [["b", "2"]],
      [["a", "1"]],
      [
        ["d", "1"],
        ["d", "2"],
      ],
      [],
      [],
    ]);
  });
});

describe("strings must be well-formed UTF-16 (a lone surrogate has no UTF-8 form)", () => {
  const LONE = ["a\uD800", "\uD800", "\uDC00b", "x\uDBFF\uDBFF\uDC00", "😀\uDE00", "\uDFFF😀"];

  it("a header key (array or object form), a key, a value or a header value with a lone surrogate is a TypeError naming it", () => {
    for (const s of LONE) {
      expectRefused({ value: "x", headers: [{ key: s, value: "v" }] }, "records[0].headers[0].key");
      expectRefused({ value: "x", headers: { [s]: "v" } }, "records[0].headers key");
      expectRefused({ key: s, value: "x" }, "records[0].key");
      expectRefused({ value: s }, "records[0].value");
      expectRefused({ value: "x", headers: [{ key: "k", value: s }] }, "records[0].headers[0].value");
      expectRefused({ value: "x", headers: { k: s } }, 'records[0].headers["k"]');
    }
    expect((encodeError({ value: "ab\uD800" }) as Error).message).toContain("index 2");
  });

  it("surrogate pairs (astral characters) are fine and come back exactly, keys included", () => {
    const s = "🔑 ключ 😀\uD83D\uDE00 end";
    const [r] = decodeBatchSync(
      encodeBatch([{ key: s, value: s, headers: [{ key: s, value: s }] }], { baseOffset: 0, timestamp: 1 }),
    ).records;
    expect(text(r!.key)).toBe(s);
    expect(text(r!.value)).toBe(s);
    expect(r!.headers[0]!.key).toBe(s);
    expect(text(r!.headers[0]!.value)).toBe(s);
  });
});
