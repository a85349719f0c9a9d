import { it } from "vitest";
import { crc32c } from "../../src/format/index.js";
import type { Storage, StorageFile } from "../../src/storage/storage.js";
import { crashTest } from "../../src/testing.js";
import type { AdapterLog, CrashTestAdapter } from "../../src/testing.js";
interface Mistakes {
  /** flush() and close() never fsync: the page cache is trusted. */
  noFsync?: boolean;
  /** Recovery trusts every length that fits in the file, without checking the CRC. */
  noCrc?: boolean;
  /** The log file's directory entry is never fsynced after the file is created. */
  noDirSync?: boolean;
  /** Recovery truncates the torn tail in the page cache only, without an fsync before appending. */
  noDurableTruncate?: boolean;
}

const HEADER = 8; // u32 length + u32 crc
const FILE = "log.bin";

class SmallLog implements AdapterLog {
  #end: number;
  constructor(
    readonly file: StorageFile,
    readonly mistakes: Mistakes,
    readonly values: Uint8Array[],
    end: number,
  ) {
    this.#end = end;
  }

  static async open(storage: Storage, mistakes: Mistakes): Promise<SmallLog> {
    const existed = (await storage.stat(FILE)) !== null;
    const file = await storage.open(FILE, { create: true });
    if (!existed && !mistakes.noDirSync) await storage.syncDir("");
    const size = await file.size();
    const bytes = await file.read(0, size);
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const values: Uint8Array[] = [];
    let at = 0;
    while (at + HEADER <= size) {
      const length = view.getUint32(at);
      if (at + HEADER + length > size) break;
      if (!mistakes.noCrc && view.getUint32(at + 4) !== checksum(bytes.subarray(at, at + 4), bytes.subarray(at + HEADER, at + HEADER + length))) break;
      values.push(bytes.slice(at + HEADER, at + HEADER + length));
      at += HEADER + length;
    }
    if (at < size) {
      await file.truncate(at);
      // Without this fsync the cut lives only in the page cache: a later crash can bring back the
      // old tail behind new records.
      if (!mistakes.noDurableTruncate) await file.sync();
    }
    return new SmallLog(file, mistakes, values, at);
  }

  async append(values: Uint8Array[]): Promise<void> {
    const size = values.reduce((n, v) => n + HEADER + v.length, 0);
    const out = new Uint8Array(size);
    const view = new DataView(out.buffer);
    let at = 0;
    for (const v of values) {
      view.setUint32(at, v.length);
      view.setUint32(at + 4, checksum(out.subarray(at, at + 4), v));
      out.set(v, at + HEADER);
      at += HEADER + v.length;
    }
    await this.file.write(this.#end, out);
    this.#end += size;
    this.values.push(...values);
  }

  async flush(): Promise<void> {
    if (!this.mistakes.noFsync) await this.file.sync();
  }

  async close(): Promise<void> {
    await this.flush();
    await this.file.close();
  }

  async readAll(): Promise<Uint8Array[]> {
    return [...this.values];
  }
}

function checksum(lengthBytes: Uint8Array, value: Uint8Array): number {
  const both = new Uint8Array(lengthBytes.length + value.length);
  both.set(lengthBytes);
  both.set(value, lengthBytes.length);
  return crc32c(both);
}

function smallLog(mistakes: Mistakes): CrashTestAdapter {
  const name = Object.keys(mistakes).join("+") || "correct";
  return { name: `small log (${name})`, open: (storage) => SmallLog.open(storage, mistakes) };
}

it("probe", async () => {
  const t = Date.now();
  const s = await crashTest(smallLog({ noDurableTruncate: true }), { seed: 7, schedules: 20000, throwOnViolation: false });
  console.log(s.schedules, s.powerCuts, Date.now() - t, s.violations[0]?.message);
}, 600000);
