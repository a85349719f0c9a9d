/**
 * `verify` tells the truth: it decodes every record with the library's own decoder, so whatever
 * reading refuses, verify refuses too, and with the same verdict. Each case builds a partition by
 * hand (batches from encodeBatch / encodeBatchAsync), mutates one batch and re-computes its CRC-32C
 * over [21, end) so the damage passes the CRC, then checks that
 *
 *   reading every record succeeds          ⇔ verify exits 0 ("clean"),
 *   reading throws PAGELOG_CORRUPT         ⇔ verify exits 1 ("damaged"),
 *   reading throws PAGELOG_UNSUPPORTED_…   ⇔ verify exits 3 ("unsupported"),
 *
 * and that verify names the damaged batch's file and byte.
 */
import { copyFileSync, cpSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isPagelogError } from "../../../../src/errors.js";
import { crc32c, encodeBatch, encodeBatchAsync } from "../../../../src/format/api.js";
import { LogDir } from "../../../../src/log/log-dir.js";
import { cli, tempDir } from "../helpers.js";

const PARTITION = "rec-0";
const SEGMENT = "00000000000000000000.log";
const T = 1_700_000_000_000;
const BATCHES = 4;
const PER_BATCH = 3;
/** The batch each case mutates (offsets 3-5). */
const TARGET = 1;

function recordsOf(batch: number) {
  return Array.from({ length: PER_BATCH }, (_, i) => {
    const offset = batch * PER_BATCH + i;
    return { key: `k${offset}`, value: `v${offset}`, timestamp: T + offset };
  });
}

/** Whole batches for a segment; `gzipTarget` makes the target batch gzip-compressed. */
async function buildBatches(gzipTarget: boolean): Promise<Uint8Array[]> {
  const out: Uint8Array[] = [];
  for (let b = 0; b < BATCHES; b++) {
    const options = { baseOffset: b * PER_BATCH, timestamp: T };
    out.push(
      gzipTarget && b === TARGET
        ? await encodeBatchAsync(recordsOf(b), { ...options, compression: "gzip" })
        : encodeBatch(recordsOf(b), options),
    );
  }
  return out;
}

/** Re-computes a batch's CRC-32C over [21, end) after a mutation. */
function fixCrc(batch: Uint8Array): void {
  new DataView(batch.buffer, batch.byteOffset, batch.byteLength).setUint32(17, crc32c(batch.subarray(21)) >>> 0);
}

/**
 * A log dir holding one hand-built partition, shut down cleanly as far as the files say (the
 * marker, checkpoints naming every offset; no index files, which the open rebuilds): every record
 * was acknowledged, so the library may not cut anything and must refuse what it cannot read.
 */
function writePartition(batches: Uint8Array[]): { dir: string; position: number } {
  const dir = tempDir("verify-records");
  mkdirSync(join(dir, PARTITION));
  const total = batches.reduce((n, b) => n + b.length, 0);
  const bytes = new Uint8Array(total);
  let at = 0;
  let position = 0;
  for (const [i, b] of batches.entries()) {
    if (i === TARGET) position = at;
    bytes.set(b, at);
    at += b.length;
  }
  writeFileSync(join(dir, PARTITION, SEGMENT), bytes);
  writeFileSync(join(dir, ".kafka_cleanshutdown"), '{"version":0,"brokerEpoch":-1}');
  writeFileSync(join(dir, "recovery-point-offset-checkpoint"), `0\n1\nrec 0 ${BATCHES * PER_BATCH}\n`);
  writeFileSync(join(dir, "log-start-offset-checkpoint"), "0\n1\nrec 0 0\n");
  return { dir, position };
}

/** What reading every record of a copy of `dir` gives: "ok", or the PagelogError's code. */
async function readOutcome(dir: string): Promise<string> {
  const copy = tempDir("verify-records-read");
  cpSync(dir, copy, { recursive: true });
  let logDir: LogDir | undefined;
  try {
    logDir = await LogDir.open(copy);
    const log = await logDir.log(PARTITION);
    let n = 0;
    for await (const _ of log.records()) n++;
    return n === log.endOffset - log.startOffset ? "ok" : `short read ${n}`;
  } catch (err) {
    if (isPagelogError(err)) return err.code;
    throw err;
  } finally {
    await logDir?.close().catch(() => undefined);
  }
}

const EXIT_FOR: Record<string, number> = {
  ok: 0,
  PAGELOG_CORRUPT: 1,
  PAGELOG_UNSUPPORTED_COMPRESSION: 3,
  PAGELOG_RECORD_TOO_LARGE: 3,
};

/** Mutations of the target batch (61-byte header, then records: length, attributes, tsDelta, offsetDelta, key length, …). */
const MUTATIONS: Array<{ name: string; expect: string; mutate: (b: Uint8Array, v: DataView) => void }> = [
  { name: "records count 2^31 - 1", expect: "PAGELOG_CORRUPT", mutate: (_b, v) => v.setInt32(57, 0x7fffffff) },
  { name: "records count -1", expect: "PAGELOG_CORRUPT", mutate: (_b, v) => v.setInt32(57, -1) },
  {
    name: "records count one more than the records",
    expect: "PAGELOG_CORRUPT",
    mutate: (_b, v) => v.setInt32(57, PER_BATCH + 1),
  },
  {
    name: "records count one fewer than the records",
    expect: "PAGELOG_CORRUPT",
    mutate: (_b, v) => v.setInt32(57, PER_BATCH - 1),
  },
  { name: "negative record length", expect: "PAGELOG_CORRUPT", mutate: (b) => void (b[61] = 5) }, // zigzag(-3)
  { name: "negative key length", expect: "PAGELOG_CORRUPT", mutate: (b) => void (b[65] = 9) }, // zigzag(-5)
  {
    name: "first record's offsetDelta 5, past lastOffsetDelta 2",
    expect: "PAGELOG_CORRUPT",
    mutate: (b) => void (b[64] = 10),
  }, // zigzag(5)
  {
    name: "second record's offsetDelta equal to the first's",
    expect: "PAGELOG_CORRUPT",
    mutate: (b) => void (b[61 + 1 + b[61]! / 2 + 3] = 0),
  },
  { name: "compression codec 7", expect: "PAGELOG_CORRUPT", mutate: (_b, v) => v.setInt16(21, v.getInt16(21) | 7) },
  { name: "compression codec 5", expect: "PAGELOG_CORRUPT", mutate: (_b, v) => v.setInt16(21, v.getInt16(21) | 5) },
  {
    name: "gzip codec on records that are not gzip",
    expect: "PAGELOG_CORRUPT",
    mutate: (_b, v) => v.setInt16(21, v.getInt16(21) | 1),
  },
  { name: "snappy", expect: "PAGELOG_UNSUPPORTED_COMPRESSION", mutate: (_b, v) => v.setInt16(21, v.getInt16(21) | 2) },
  { name: "lz4", expect: "PAGELOG_UNSUPPORTED_COMPRESSION", mutate: (_b, v) => v.setInt16(21, v.getInt16(21) | 3) },
  { name: "zstd", expect: "PAGELOG_UNSUPPORTED_COMPRESSION", mutate: (_b, v) => v.setInt16(21, v.getInt16(21) | 4) },
  {
    name: "snappy declaring more records than offsets (the walk refuses the header before any codec)",
    expect: "PAGELOG_CORRUPT",
    mutate: (_b, v) => {
      v.setInt16(21, v.getInt16(21) | 2);
      v.setInt32(57, PER_BATCH + 1);
    },
  },
];

describe("verify agrees with reads on CRC-valid batches", () => {
  it("the unmutated partition reads back and verifies clean (exit 0), gzip batches decompressed", async () => {
    for (const gzip of [false, true]) {
      const { dir } = writePartition(await buildBatches(gzip));
      expect(await readOutcome(dir)).toBe("ok");
      const run = await cli(["verify", dir]);
      expect(run.code, run.stdout).toBe(0);
      expect(run.stdout).toMatch(
        /^clean: 1 partition, 1 segment, every batch's CRC and records, every index entry and offset checked$/m,
      );
    }
  });

  for (const m of MUTATIONS) {
    it(`${m.name}: reads give ${m.expect}, verify exits ${EXIT_FOR[m.expect]} naming the batch`, async () => {
      const batches = await buildBatches(false);
      const target = batches[TARGET]!;
      m.mutate(target, new DataView(target.buffer, target.byteOffset, target.byteLength));
      fixCrc(target);
      const { dir, position } = writePartition(batches);
      const outcome = await readOutcome(dir);
      expect(outcome).toBe(m.expect);
      const run = await cli(["verify", dir]);
      expect(run.stderr).toBe("");
      expect(run.code, run.stdout).toBe(EXIT_FOR[outcome]);
      expect(run.stdout).toContain(`  ${PARTITION}/${SEGMENT} byte ${position}: `);
      expect(run.stdout).toMatch(
        outcome === "PAGELOG_CORRUPT"
          ? /^DAMAGED: 1 problem in 1 file$/m
          : /^UNSUPPORTED: 1 batch in 1 file that pagelog cannot read/m,
      );
      expect(run.stdout).not.toMatch(/^clean:/m);
    });
  }

  it("a gzip batch whose compressed bytes are damaged (CRC fixed): reads and verify both say corrupt", async () => {
    const batches = await buildBatches(true);
    const target = batches[TARGET]!;
    target[target.length - 5]! ^= 0xff; // inside gzip's trailer (CRC-32 / size)
    fixCrc(target);
    const { dir, position } = writePartition(batches);
    expect(await readOutcome(dir)).toBe("PAGELOG_CORRUPT");
    const run = await cli(["verify", dir]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(
      `${PARTITION}/${SEGMENT} byte ${position}: records cannot be read: gzip data in batch is invalid`,
    );
  });

  it("any first-record offsetDelta: verify's verdict is whatever reading gives (the same decoder)", async () => {
    for (const delta of [1, 2, 5, 100]) {
      const batches = await buildBatches(false);
      const target = batches[TARGET]!;
      target[64] = delta * 2; // zigzag, one byte
      fixCrc(target);
      const { dir } = writePartition(batches);
      const outcome = await readOutcome(dir);
      const run = await cli(["verify", dir]);
      expect(run.code, `delta ${delta}: read gave ${outcome}\n${run.stdout}`).toBe(EXIT_FOR[outcome]);
    }
  });

  it("--json: status, clean, problems and unsupported kept apart; damage outranks unsupported (exit 1)", async () => {
    const batches = await buildBatches(false);
    for (const [i, codec] of [
      [TARGET, 2],
      [TARGET + 1, 7],
    ] as const) {
      const v = new DataView(batches[i]!.buffer, batches[i]!.byteOffset, batches[i]!.byteLength);
      v.setInt16(21, v.getInt16(21) | codec);
      fixCrc(batches[i]!);
    }
    const { dir, position } = writePartition(batches);
    const run = await cli(["verify", "--json", dir]);
    expect(run.code).toBe(1);
    const report = JSON.parse(run.stdout) as {
      status: string;
      clean: boolean;
      problems: Array<{ path: string; byte: number; problem: string }>;
      unsupported: Array<{ path: string; byte: number; problem: string }>;
    };
    expect(report.status).toBe("damaged");
    expect(report.clean).toBe(false);
    expect(report.unsupported).toEqual([
      {
        path: `${PARTITION}/${SEGMENT}`,
        byte: position,
        problem: expect.stringMatching(/snappy-compressed.*PAGELOG_UNSUPPORTED_COMPRESSION/),
      },
    ]);
    expect(report.problems).toEqual([
      {
        path: `${PARTITION}/${SEGMENT}`,
        byte: position + batches[TARGET]!.length,
        problem: expect.stringMatching(/unknown compression codec 7/),
      },
    ]);

    const onlySnappy = await buildBatches(false);
    const v = new DataView(onlySnappy[TARGET]!.buffer, onlySnappy[TARGET]!.byteOffset, onlySnappy[TARGET]!.byteLength);
    v.setInt16(21, v.getInt16(21) | 2);
    fixCrc(onlySnappy[TARGET]!);
    const second = await cli(["verify", "--json", writePartition(onlySnappy).dir]);
    expect(second.code).toBe(3);
    expect(JSON.parse(second.stdout)).toMatchObject({ status: "unsupported", clean: false, problems: [] });
  });

  it("dump: an unsupported batch is marked, and --records says why it is not decoded", async () => {
    const batches = await buildBatches(false);
    const v = new DataView(batches[TARGET]!.buffer, batches[TARGET]!.byteOffset, batches[TARGET]!.byteLength);
    v.setInt16(21, v.getInt16(21) | 4);
    fixCrc(batches[TARGET]!);
    const { dir, position } = writePartition(batches);
    const run = await cli(["dump", "--records", join(dir, PARTITION, SEGMENT)]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      `  UNSUPPORTED at byte ${position}: batch at offset 3 is zstd-compressed (reads fail with PAGELOG_UNSUPPORTED_COMPRESSION)`,
    );
    expect(run.stdout).toMatch(/^\| records not decoded: batch at offset 3 is zstd-compressed/m);
    expect(run.stdout).toMatch(/; every batch valid; 1 batch pagelog cannot read$/m);
  });
});

describe("verify reports what the loader refuses", () => {
  it("a .swap that ends where no segment starts: opening throws PAGELOG_CORRUPT, verify exits 1 naming it", async () => {
    const dir = tempDir("verify-swap");
    const logDir = await LogDir.open(dir);
    await (await logDir.log(PARTITION)).append([{ value: "a" }]);
    await logDir.close();
    copyFileSync(join(dir, PARTITION, SEGMENT), join(dir, PARTITION, `${SEGMENT}.swap`));
    expect(await readOutcome(dir)).toBe("PAGELOG_CORRUPT");
    const run = await cli(["verify", dir]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(
      `  ${PARTITION}/${SEGMENT}.swap byte 0: an interrupted compaction: the next open finishes the swap if it holds whole batches ending where a later segment starts, and otherwise refuses this log (PAGELOG_CORRUPT)`,
    );
    expect(run.stdout).not.toContain("leftover");
  });

  it("a directory where the marker, the lock or a checkpoint belongs: open or close fails, verify exits 1 naming it", async () => {
    for (const name of [
      ".kafka_cleanshutdown",
      ".lock",
      "recovery-point-offset-checkpoint",
      "log-start-offset-checkpoint",
    ]) {
      const dir = tempDir("verify-dirs");
      const logDir = await LogDir.open(dir);
      await (await logDir.log(PARTITION)).append([{ value: "a" }]);
      await logDir.close();
      rmSync(join(dir, name), { force: true });
      mkdirSync(join(dir, name));
      writeFileSync(join(dir, name, "x"), "");
      let refused: string | undefined;
      try {
        const again = await LogDir.open(dir);
        await again.log(PARTITION);
        await again.close();
      } catch (err) {
        refused = isPagelogError(err) ? err.code : String(err);
      }
      expect(refused, name).toBe("PAGELOG_IO");
      const run = await cli(["verify", dir]);
      expect(run.code, name).toBe(1);
      expect(run.stdout).toContain(`  ${name} byte 0: a dir, not a file: `);
    }
  });

  it("a log start offset past the end after a clean shutdown is a problem; after a crash, a note", async () => {
    const dir = tempDir("verify-start");
    const logDir = await LogDir.open(dir);
    const log = await logDir.log(PARTITION);
    for (let i = 0; i < 5; i++) await log.append([{ value: `v${i}` }]);
    await logDir.close();
    writeFileSync(join(dir, "log-start-offset-checkpoint"), `0\n1\nrec 0 1000\n`);
    const run = await cli(["verify", dir]);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(
      /^ {2}log-start-offset-checkpoint byte 4: log start offset of rec-0 is 1000, past the end of its log \(5\) after a clean shutdown/m,
    );
    rmSync(join(dir, ".kafka_cleanshutdown"));
    const unclean = await cli(["verify", dir]);
    expect(unclean.code).toBe(0);
    expect(unclean.stdout).toMatch(
      /^note: log-start-offset-checkpoint: the start offset of rec-0, 1000, is past the end of its log \(5\): the next open starts the log over, empty, at 1000$/m,
    );
  });
});
