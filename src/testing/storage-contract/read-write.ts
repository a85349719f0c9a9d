/** The Storage contract, read and write: positioned I/O, gaps of zeros, buffers the caller owns, shared handles. */
import { assertEqual, assertFails } from "./assert.js";
import { bytes, readAll, text, type Section } from "./suite.js";

export function readWriteSection({ describe, test }: Section): void {
  describe("read and write", () => {
    positionTests(test);
    sizeTests(test);
    bufferTests(test);
    handleAndArgumentTests(test);
  });
}

/** Where bytes go: positions, gaps of zeros, short reads at the end. */
function positionTests(test: Section["test"]): void {
  test("write then read at positions", async (s) => {
    const f = await s.open("f", { create: true });
    await f.write(0, bytes("hello world"));
    await f.write(6, bytes("WORLD"));
    assertEqual(text(await f.read(0, 11)), "hello WORLD", "text(f.read(0, 11))");
    assertEqual(text(await f.read(6, 3)), "WOR", "text(f.read(6, 3))");
    assertEqual(text(await f.read(10, 1)), "D", "text(f.read(10, 1))");
    await f.close();
  });

  test("write past the end fills the gap with zeros", async (s) => {
    const f = await s.open("f", { create: true });
    await f.write(0, bytes("ab"));
    await f.write(5, bytes("cd"));
    assertEqual(await f.size(), 7, "f.size()");
    assertEqual(text(await f.read(0, 7)), "ab\0\0\0cd", "text(f.read(0, 7))");
    await f.close();
  });

  test("write into an empty file at a position zero-fills from 0", async (s) => {
    const f = await s.open("f", { create: true });
    await f.write(3, bytes("x"));
    assertEqual(text(await f.read(0, 10)), "\0\0\0x", "text(f.read(0, 10))");
    await f.close();
  });

  test("read is short only at the end of the file", async (s) => {
    const f = await s.open("f", { create: true });
    await f.write(0, bytes("0123456789"));
    assertEqual(text(await f.read(4, 100)), "456789", "text(f.read(4, 100))");
    assertEqual(text(await f.read(9, 2)), "9", "text(f.read(9, 2))");
    await f.close();
  });

  test("read at or past the end is empty", async (s) => {
    const f = await s.open("f", { create: true });
    await f.write(0, bytes("abc"));
    assertEqual((await f.read(3, 10)).length, 0, "(f.read(3, 10)).length");
    assertEqual((await f.read(1000, 10)).length, 0, "(f.read(1000, 10)).length");
    assertEqual((await f.read(0, 0)).length, 0, "(f.read(0, 0)).length");
    await f.close();
  });

  test("a write spanning several pages reads back exactly", async (s) => {
    const data = new Uint8Array(3 * 4096 + 123);
    for (let i = 0; i < data.length; i++) data[i] = (i * 31 + 7) & 0xff;
    const f = await s.open("f", { create: true });
    await f.write(4000, data);
    assertEqual(await f.size(), 4000 + data.length, "f.size()");
    assertEqual(await f.read(4000, data.length), data, "f.read(4000, data.length)");
    assertEqual(await f.read(0, 4000), new Uint8Array(4000), "f.read(0, 4000)");
    assertEqual(await f.read(4096, 100), data.subarray(96, 196), "f.read(4096, 100)");
    await f.close();
  });
}

/** What the size is after overwrites, writes past the end and empty writes. */
function sizeTests(test: Section["test"]): void {
  test("overwriting inside the file keeps its size", async (s) => {
    const f = await s.open("f", { create: true });
    await f.write(0, bytes("abcdef"));
    await f.write(2, bytes("XY"));
    assertEqual(await f.size(), 6, "f.size()");
    assertEqual(await readAll(f), "abXYef", "readAll(f)");
    await f.close();
  });

  test("size is the end of the furthest write", async (s) => {
    const f = await s.open("f", { create: true });
    await f.write(10, bytes("a"));
    await f.write(2, bytes("b"));
    assertEqual(await f.size(), 11, "f.size()");
    await f.close();
  });

  test("a write of 0 bytes resolves and changes nothing, not even the size", async (s) => {
    const f = await s.open("f", { create: true });
    await f.write(0, bytes("abc"));
    await f.write(1, new Uint8Array(0));
    await f.write(100, new Uint8Array(0));
    assertEqual(await f.size(), 3, "f.size()");
    assertEqual(await readAll(f), "abc", "readAll(f)");
    await f.close();
  });
}

/** Buffers the caller owns: a write copies, a read result is the caller's own. */
function bufferTests(test: Section["test"]): void {
  test("the caller may change the buffer after write resolves", async (s) => {
    const f = await s.open("f", { create: true });
    const buffer = bytes("original");
    await f.write(0, buffer);
    buffer.fill(0x21);
    assertEqual(await readAll(f), "original", "readAll(f)");
    await f.close();
  });

  test("changing a read result does not change the file", async (s) => {
    const f = await s.open("f", { create: true });
    await f.write(0, bytes("original"));
    const first = await f.read(0, 8);
    first.fill(0x21);
    assertEqual(text(await f.read(0, 8)), "original", "text(f.read(0, 8))");
    await f.close();
  });

  test("a read result is the caller's own: later writes and reads do not change it", async (s) => {
    const f = await s.open("f", { create: true });
    await f.write(0, bytes("original"));
    const first = await f.read(0, 8);
    await f.write(0, bytes("OVERWRIT"));
    const second = await f.read(0, 8);
    second.fill(0x21);
    assertEqual(text(first), "original", "text(first read, after a write and another read)");
    await f.close();
  });

  test("readInto (optional) reads what read reads, into the caller's memory, short only at the end", async (s) => {
    const f = await s.open("f", { create: true });
    await f.write(0, bytes("0123456789"));
    if (typeof f.readInto !== "function") {
      await f.close();
      return; // not offered: callers fall back to read
    }
    const target = new Uint8Array(16).fill(0x2e);
    assertEqual(await f.readInto(2, target.subarray(1, 5)), 4, "f.readInto(2, 4 bytes)");
    assertEqual(text(target.subarray(0, 6)), ".2345.", "the target around what was read");
    assertEqual(await f.readInto(8, target), 2, "f.readInto(8, 16 bytes) at the end");
    assertEqual(text(target.subarray(0, 2)), "89", "what it read");
    assertEqual(await f.readInto(10, target), 0, "f.readInto at the end");
    await f.close();
  });

  test("a write from a view into a larger buffer writes only the view", async (s) => {
    const backing = bytes("xxHELLOxx");
    const f = await s.open("f", { create: true });
    await f.write(0, backing.subarray(2, 7));
    assertEqual(await readAll(f), "HELLO", "readAll(f)");
    await f.close();
  });
}

/** Two handles on one file, and the arguments a file refuses. */
function handleAndArgumentTests(test: Section["test"]): void {
  test("two handles on one file see each other's writes", async (s) => {
    const a = await s.open("f", { create: true });
    const b = await s.open("f");
    await a.write(0, bytes("from a"));
    assertEqual(text(await b.read(0, 6)), "from a", "text(b.read(0, 6))");
    await b.write(0, bytes("FROM"));
    assertEqual(text(await a.read(0, 6)), "FROM a", "text(a.read(0, 6))");
    await b.truncate(2);
    assertEqual(await a.size(), 2, "a.size()");
    await a.close();
    assertEqual(text(await b.read(0, 10)), "FR", "text(b.read(0, 10))");
    await b.close();
  });

  test("bad positions and lengths are RangeErrors, non-bytes a TypeError", async (s) => {
    const f = await s.open("f", { create: true });
    await assertFails(() => f.read(-1, 1), RangeError, "f.read(-1, 1)");
    await assertFails(() => f.read(0, -1), RangeError, "f.read(0, -1)");
    await assertFails(() => f.read(0.5, 1), RangeError, "f.read(0.5, 1)");
    await assertFails(() => f.write(-1, bytes("x")), RangeError, 'f.write(-1, bytes("x"))');
    await assertFails(() => f.write(Number.NaN, bytes("x")), RangeError, 'f.write(Number.NaN, bytes("x"))');
    await assertFails(() => f.truncate(-1), RangeError, "f.truncate(-1)");
    await assertFails(() => f.write(0, "text" as unknown as Uint8Array), TypeError, 'f.write(0, "text")');
    await assertFails(() => f.write(0, [1, 2] as unknown as Uint8Array), TypeError, "f.write(0, [1, 2])");
    assertEqual(await f.size(), 0, "f.size()");
    await f.close();
  });
}
