/**
 * The rows of issue 20 (lazy segments), on tmpfs: a clean open of one partition of 10,000 and of
 * 100,000 segments, each against `readdir` of the same names in the same process (the ratio is
 * the figure); the first read of the oldest segment after such an open; a clean open of 10,000
 * partitions against `readdir` of the root; and the heap bytes one idle segment costs. The
 * directories are written directly with `pagelog/format` (one 10-record batch per segment, its
 * one time-index entry, checkpoints and the clean-shutdown marker, as a clean close leaves
 * them), so building 100,000 segments takes seconds, not an append per segment.
 */
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { encodeBatch } from "../../format/api.js";
import { LogDir } from "../../log/log-dir.js";
import { FsStorage } from "../../storage/fs-storage.js";
import { type BenchContext, freshDir, scaled } from "../context.js";
import type { Measured } from "../measure.js";
import { timed } from "../measure.js";

const RECORDS = 10;
const T0 = 1_700_000_000_000;
const pad = (n: number) => String(n).padStart(20, "0");

/** Writes `partitions` partitions of `segments` segments under a fresh `name` (once per run). */
function buildDir(ctx: BenchContext, name: string, partitions: number, segments: number): string {
  const root = join(ctx.tmpfsDir, name);
  if (existsSync(join(root, ".kafka_cleanshutdown"))) return root;
  freshDir(ctx.tmpfsDir, name);
  const value = new Uint8Array(100).fill(7);
  const entries: string[] = [];
  const starts: string[] = [];
  for (let p = 0; p < partitions; p++) {
    const dir = join(root, `t-${p}`);
    mkdirSync(dir);
    for (let s = 0; s < segments; s++) {
      const base = s * RECORDS;
      const records = Array.from({ length: RECORDS }, (_, i) => ({ value, timestamp: T0 + base + i }));
      writeFileSync(join(dir, `${pad(base)}.log`), encodeBatch(records, { baseOffset: base }));
      writeFileSync(join(dir, `${pad(base)}.index`), new Uint8Array(0));
      const entry = new Uint8Array(12); // the one entry a roll's seal leaves: (largest timestamp, last offset)
      new DataView(entry.buffer).setBigInt64(0, BigInt(T0 + base + RECORDS - 1));
      new DataView(entry.buffer).setInt32(8, RECORDS - 1);
      writeFileSync(join(dir, `${pad(base)}.timeindex`), entry);
    }
    entries.push(`t ${p} ${segments * RECORDS}`);
    starts.push(`t ${p} 0`);
  }
  writeFileSync(join(root, "recovery-point-offset-checkpoint"), `0\n${partitions}\n${entries.join("\n")}\n`);
  writeFileSync(join(root, "log-start-offset-checkpoint"), `0\n${partitions}\n${starts.join("\n")}\n`);
  writeFileSync(join(root, ".kafka_cleanshutdown"), '{"version":0,"brokerEpoch":-1}');
  return root;
}

/** A clean open of one partition of `segments` segments, its first read of offset 0, and readdir of it. */
async function openPartition(
  ctx: BenchContext,
  segments: number,
  label: string,
): Promise<{ open: Measured; firstRead: Measured }> {
  const root = buildDir(ctx, `open-${segments}`, 1, segments);
  const open = { pagelog: [] as number[], reference: [] as number[] };
  const firstRead: number[] = [];
  for (let r = 0; r < ctx.repeats; r++) {
    const storage = await FsStorage.open(root);
    const opened = await timed(async () => {
      const dir = await LogDir.open(storage);
      return { dir, log: await dir.log("t-0") };
    });
    const { dir, log } = opened.value;
    if (!log.recovery.clean || log.segmentCount !== segments)
      throw new Error(`opened ${log.segmentCount} segments (clean: ${log.recovery.clean}), expected ${segments}`);
    const read = await timed(() => log.read(0, { maxRecords: 1 }));
    if (read.value[0]?.offset !== 0) throw new Error("the first read did not give offset 0");
    await dir.close();
    await storage.close();
    open.pagelog.push(opened.ms);
    firstRead.push(read.ms);
    open.reference.push((await timed(() => readdirSync(join(root, "t-0")).length)).ms);
  }
  const row = `open-${label}-segments`;
  return {
    open: {
      row,
      unit: "ms",
      ...open,
      notes: [
        `clean LogDir.open + dir.log of one partition of ${segments} segments; reference: readdirSync of its ${segments * 3} names (goal: within 3x, and < ${segments > 10_000 ? "1 s" : "100 ms"})`,
      ],
    },
    firstRead: {
      row: `${row}/first-read`,
      unit: "ms",
      pagelog: firstRead,
      reference: null,
      notes: [`read(0) right after that open: the oldest segment's first use (open, size, check, read)`],
    },
  };
}

export async function open10kSegments(ctx: BenchContext): Promise<Measured[]> {
  const { open, firstRead } = await openPartition(ctx, scaled(ctx, 10_000, 10), "10k");
  return [open, firstRead];
}

export async function open100kSegments(ctx: BenchContext): Promise<Measured[]> {
  const { open, firstRead } = await openPartition(ctx, scaled(ctx, 100_000, 10), "100k");
  return [open, firstRead];
}

export async function open10kPartitions(ctx: BenchContext): Promise<Measured[]> {
  const partitions = scaled(ctx, 10_000, 10);
  const root = buildDir(ctx, "open-partitions", partitions, 1);
  const pagelog: number[] = [];
  const reference: number[] = [];
  for (let r = 0; r < ctx.repeats; r++) {
    const storage = await FsStorage.open(root);
    const opened = await timed(() => LogDir.open(storage));
    const listed = (await opened.value.logs()).length;
    await opened.value.close();
    await storage.close();
    if (listed !== partitions) throw new Error(`dir.logs() listed ${listed} partitions, expected ${partitions}`);
    pagelog.push(opened.ms);
    reference.push((await timed(() => readdirSync(root).length)).ms);
  }
  return [
    {
      row: "open-10k-partitions",
      unit: "ms",
      pagelog,
      reference,
      notes: [`clean LogDir.open of ${partitions} partitions (none opened); reference: readdirSync of the root`],
    },
  ];
}

/** Heap bytes per idle segment: the heap after a clean open of many segments, less one of a few. */
export async function idleSegmentBytes(ctx: BenchContext): Promise<Measured[]> {
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc") as () => void;
  const many = scaled(ctx, 10_000, 100);
  const few = 10;
  const heapAfterOpen = async (segments: number): Promise<{ bytes: number; close: () => Promise<void> }> => {
    const root = buildDir(ctx, `open-${segments}`, 1, segments);
    const storage = await FsStorage.open(root);
    gc();
    const before = process.memoryUsage().heapUsed;
    const dir = await LogDir.open(storage);
    await dir.log("t-0");
    gc();
    const bytes = process.memoryUsage().heapUsed - before;
    return { bytes, close: async () => (await dir.close(), await storage.close()) };
  };
  const perSegment: number[] = [];
  for (let r = 0; r < ctx.repeats; r++) {
    const small = await heapAfterOpen(few);
    await small.close();
    const large = await heapAfterOpen(many);
    await large.close();
    perSegment.push((large.bytes - small.bytes) / (many - few));
  }
  return [
    {
      row: "idle-segment-bytes",
      unit: "B",
      pagelog: perSegment,
      reference: null,
      notes: [`heap after a clean open of ${many} segments less that of ${few}, per segment (gc before each reading)`],
    },
  ];
}
