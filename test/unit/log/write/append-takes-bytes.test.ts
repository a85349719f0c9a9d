/**
 * A record is what was passed at the call (issue 31): `append()` returns at once and the batch is
 * encoded later, when its group runs, so the log copies every key, value and header value before
 * it returns. A buffer overwritten, shrunk, grown or transferred after the call changes nothing;
 * one already detached at the call is a TypeError naming it. On SimStorage and real files.
 */
import { afterEach, describe, expect, it } from "vitest";
import { rm } from "node:fs/promises";
import { encodeBatch, type RecordInput } from "../../../../src/format/api.js";
import { LogDir } from "../../../../src/log/log-dir.js";
import type { Log } from "../../../../src/log/log.js";
import type { LogOptions } from "../../../../src/log/options/log-options.js";
import { FsStorage } from "../../../../src/storage/fs-storage.js";
import { SimStorage } from "../../../../src/storage/sim-storage.js";
import { rng } from "../../../support/xorshift.js";
import { testSeed } from "../../../support/seed.js";
import { expectTypeError, makeTempDir, readAll } from "../helpers.js";

const ascii = (s: string): Uint8Array => new TextEncoder().encode(s);
/** Detaches `buffer` as `postMessage(…, [buffer])` would. */
const transfer = (buffer: ArrayBuffer): void => void structuredClone(buffer, { transfer: [buffer] });

/** A resizable ArrayBuffer (ES2024: the project's TypeScript lib predates its types). */
interface Resizable extends ArrayBuffer {
  resize(byteLength: number): void;
}
const resizable = (byteLength: number, maxByteLength: number): Resizable =>
  new (ArrayBuffer as unknown as new (n: number, o: { maxByteLength: number }) => Resizable)(byteLength, {
    maxByteLength,
  });

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const storages = {
  SimStorage: async (): Promise<Log> => {
    const dir = await LogDir.open(new SimStorage({ seed: 5 }));
    cleanups.push(() => dir.close());
    return dir.log("t-0");
  },
  FsStorage: (): Promise<Log> => onFiles({}),
  "FsStorage, durable appends (flushMessages 1)": (): Promise<Log> => onFiles({ flushMessages: 1 }),
};

async function onFiles(options: LogOptions): Promise<Log> {
  const path = await makeTempDir();
  const dir = await LogDir.open(await FsStorage.open(path));
  cleanups.push(async () => {
    await dir.close();
    await rm(path, { recursive: true, force: true });
  });
  return dir.log("t-0", options);
}

describe.each(Object.entries(storages))("append takes the caller's bytes at the call (%s)", (_, open) => {
  it("a key, value and header values overwritten before the append resolves are written as passed", async () => {
    const log = await open();
    const first = log.append([{ value: "in flight" }]); // the next appends queue behind its write
    const key = ascii("key-AAAA");
    const value = ascii("AAAAAAAA");
    const listed = ascii("list-AAA");
    const named = ascii("named-AA");
    const appended = log.append([
      { key, value, headers: [{ key: "h", value: listed }] },
      { value, headers: { n: named } },
    ]);
    for (const b of [key, value, listed, named]) b.fill(0x42); // "BBBB…", before anything is awaited
    await Promise.all([first, appended]);
    const read = await readAll(log);
    expect(read.slice(1).map((r) => [r.key, r.value, r.headers.map((h) => h.value)])).toEqual([
      ["key-AAAA", "AAAAAAAA", ["list-AAA"]],
      [null, "AAAAAAAA", ["named-AA"]],
    ]);
  });

  it("a resizable ArrayBuffer shrunk or grown after the call leaves the record as it was", async () => {
    const log = await open();
    const shrunk = resizable(8, 16);
    const grown = resizable(8, 16);
    new Uint8Array(shrunk).set(ascii("shrunkAA"));
    new Uint8Array(grown).set(ascii("grownAAA"));
    const fixed = new Uint8Array(shrunk, 2, 6); // "runkAA": out of bounds once shrunk to 4
    const tracking = new Uint8Array(grown); // length-tracking: would read 16 bytes once grown
    const appended = log.append([{ value: new Uint8Array(shrunk) }, { value: fixed }, { value: tracking }]);
    shrunk.resize(4);
    grown.resize(16);
    await appended;
    expect((await readAll(log)).map((r) => r.value)).toEqual(["shrunkAA", "runkAA", "grownAAA"]);
  });

  it("a buffer transferred (detached) after the call still appends what it held", async () => {
    const log = await open();
    const buffer = new ArrayBuffer(8);
    new Uint8Array(buffer).set(ascii("sent-off"));
    const appended = log.append([{ key: new Uint8Array(buffer, 0, 4), value: new Uint8Array(buffer) }]);
    transfer(buffer);
    await appended;
    expect((await readAll(log)).map((r) => [r.key, r.value])).toEqual([["sent", "sent-off"]]);
  });

  it("a buffer already detached at the call is a TypeError naming it, and nothing is appended", async () => {
    const log = await open();
    const buffer = new ArrayBuffer(8);
    const gone = new Uint8Array(buffer); // made before: no view can be made of a detached buffer
    transfer(buffer);
    const good = { value: "fine" };
    await expectTypeError(() => log.append([good, good, { value: gone }]), "records[2].value");
    await expectTypeError(() => log.append([{ key: gone, value: "v" }]), "records[0].key");
    await expectTypeError(
      () => log.append([good, { value: "v", headers: [{ key: "h", value: gone }] }]),
      "records[1].headers[0].value",
    );
    const shrunk = resizable(8, 8);
    const outOfBounds = new Uint8Array(shrunk, 4, 4);
    shrunk.resize(2);
    await expectTypeError(() => log.append([{ value: "v", headers: { o: outOfBounds } }]), 'records[0].headers["o"]');
    expect(log.endOffset).toBe(0);
    await log.append([good]); // the log is fine
    expect((await readAll(log)).map((r) => r.value)).toEqual(["fine"]);
  });

  it("views of a SharedArrayBuffer, a pooled Buffer and a resizable buffer at an offset append their own bytes", async () => {
    const log = await open();
    const shared = new Uint8Array(new SharedArrayBuffer(16), 3, 6);
    shared.set(ascii("shared"));
    const pooled = Buffer.from("pooled"); // a slice of Node's 8 KiB pool: byteOffset is not 0
    expect(pooled.byteOffset).toBeGreaterThan(0);
    const growing = resizable(12, 24);
    const tracking = new Uint8Array(growing, 5); // length-tracking from an offset
    tracking.set(ascii("tracker"));
    const emptyBuffer = resizable(0, 8);
    const empty = new Uint8Array(emptyBuffer); // empty now, grows later
    const appended = log.append([
      { key: shared, value: pooled },
      { value: tracking, headers: { e: empty } },
    ]);
    shared.fill(0);
    pooled.fill(0);
    tracking.fill(0);
    growing.resize(24);
    emptyBuffer.resize(8);
    empty.fill(0x41);
    await appended;
    const read = await readAll(log);
    expect(read.map((r) => [r.key, r.value, r.headers.map((h) => h.value)])).toEqual([
      ["shared", "pooled", []],
      [null, "tracker", [""]],
    ]);
  });
});

describe("append takes the caller's bytes at the call, under load", () => {
  it("many groups of appends of every size, each buffer overwritten at once, read back as passed", async () => {
    const seed = testSeed();
    const next = rng(seed);
    const dir = await LogDir.open(new SimStorage({ seed }));
    cleanups.push(() => dir.close());
    const log = await dir.log("t-0", { maxBatchBytes: 1 << 20 });
    // One reused scratch buffer, as a producer that fills the same memory for every call.
    const scratch = new Uint8Array(8 * 40_000);
    const expected: Array<[string, string]> = []; // value, and the header "at": the call's earlier values
    const inFlight: Array<Promise<unknown>> = [];
    for (let call = 0; call < 60; call++) {
      const records: RecordInput[] = [];
      let at = 0;
      let before = "";
      for (let r = 1 + next(8); r > 0; r--) {
        // Sizes across the copy's paths: empty, small (shared memory) and large (memory of its own).
        const size = [0, 1 + next(100), 1 + next(2_000), 8_000 + next(30_000)][next(4)]!;
        const text = `${expected.length}:`.padEnd(size, String.fromCharCode(97 + next(26))).slice(0, size);
        scratch.set(ascii(text), at);
        records.push({ value: scratch.subarray(at, at + size), headers: { at: scratch.subarray(0, at) } });
        expected.push([text, before]);
        at += size;
        before += text;
      }
      inFlight.push(log.append(records));
      scratch.fill(0x21);
      if (next(3) === 0) await Promise.all(inFlight.splice(0));
    }
    await Promise.all(inFlight);
    const read = await readAll(log);
    expect(read.length).toBe(expected.length);
    read.forEach((r, i) => expect([r.value, r.headers[0]!.value], `record ${i}`).toEqual(expected[i]));
  });
});

describe("encodeBatch and detached buffers", () => {
  it("a value on a detached buffer is a TypeError naming it, not an empty value", () => {
    const buffer = new ArrayBuffer(4);
    const gone = new Uint8Array(buffer);
    transfer(buffer);
    expect(() => encodeBatch([{ value: "a" }, { value: gone }], { baseOffset: 0 })).toThrow(
      /records\[1\]\.value is a view of a detached/,
    );
    // An empty value is still an empty value.
    expect(encodeBatch([{ value: new Uint8Array(0) }], { baseOffset: 0 }).length).toBeGreaterThan(0);
  });
});
