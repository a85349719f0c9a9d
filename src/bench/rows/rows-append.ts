/**
 * The append rows on tmpfs, flushing off: `append-100B`, `append-1KiB` (with its cold first
 * repeat), `append-in-flight` and `append-4GB`. The reference of each is `writeSync` + `crc32c`
 * of the same batches, encoded with `encodeBatch` before the clock starts: what an append must
 * at least do.
 */
import { closeSync, openSync, statfsSync, writeSync } from "node:fs";
import { join } from "node:path";
import { encodeBatch, type RecordInput } from "../../format/api.js";
import { type BenchContext, freshDir, makeRecords, openBenchLog, removeDir, scaled } from "../context.js";
import { plural } from "../../text/plural.js";
import { keep, MB, type Measured, mbPerSecond, timed } from "../measure.js";

/** Distinct pre-encoded batches the reference cycles through (one per call would be the whole log in memory). */
const RING = 8;

/** Pagelog's MB/s appending `records` `calls` times, one awaited call after another, into a fresh log. */
async function pagelogAppends(ctx: BenchContext, records: readonly RecordInput[], calls: number): Promise<number> {
  const path = freshDir(ctx.tmpfsDir, "append");
  try {
    const opened = await openBenchLog(ctx, path);
    try {
      const before = opened.log.size;
      const { ms } = await timed(async () => {
        for (let i = 0; i < calls; i++) await opened.log.append(records);
      });
      return mbPerSecond(opened.log.size - before, ms);
    } finally {
      await opened.close();
    }
  } finally {
    removeDir(path);
  }
}

/** The reference's MB/s: `writeSync` + `crc32c` of `calls` pre-encoded batches, into a fresh file. */
function referenceAppends(ctx: BenchContext, batches: readonly Uint8Array[], calls: number): number {
  const path = freshDir(ctx.tmpfsDir, "reference");
  try {
    const fd = openSync(join(path, "00000000000000000000.log"), "w");
    let bytes = 0;
    let acc = 0;
    const start = process.hrtime.bigint();
    try {
      for (let i = 0; i < calls; i++) {
        const batch = batches[i % batches.length]!;
        acc ^= ctx.crc(batch);
        writeSync(fd, batch);
        bytes += batch.length;
      }
    } finally {
      closeSync(fd);
    }
    const ms = Number(process.hrtime.bigint() - start) / 1e6;
    keep(acc);
    return mbPerSecond(bytes, ms);
  } finally {
    removeDir(path);
  }
}

/** The batches `records` make at successive offsets, as pagelog writes them. */
function encodeRing(ctx: BenchContext, records: readonly RecordInput[]): Uint8Array[] {
  return Array.from({ length: RING }, (_, i) =>
    encodeBatch(records, { baseOffset: i * records.length, timestamp: 0, crc32c: ctx.crc }),
  );
}

/** Pagelog's and the reference's MB/s, repeat by repeat, each appending `totalBytes` of `records` batches. */
async function appendPairs(
  ctx: BenchContext,
  records: readonly RecordInput[],
  totalBytes: number,
  repeats: number,
): Promise<{ pagelog: number[]; reference: number[] }> {
  const batches = encodeRing(ctx, records);
  const calls = Math.max(1, Math.ceil(totalBytes / batches[0]!.length));
  const pagelog: number[] = [];
  const reference: number[] = [];
  for (let r = 0; r < repeats; r++) {
    pagelog.push(await pagelogAppends(ctx, records, calls));
    reference.push(referenceAppends(ctx, batches, calls));
  }
  return { pagelog, reference };
}

const PER_REPEAT_BYTES = 64 * MB;

export async function append100B(ctx: BenchContext): Promise<Measured[]> {
  const records = makeRecords(100, 100, 1);
  const total = scaled(ctx, PER_REPEAT_BYTES);
  const { pagelog, reference } = await appendPairs(ctx, records, total, ctx.repeats);
  return [
    {
      row: "append-100B",
      unit: "MB/s",
      pagelog,
      reference,
      notes: [`${(total / MB).toFixed(1)} MB per repeat; reference: writeSync + crc32c of the same batches`],
    },
  ];
}

export async function append1KiB(ctx: BenchContext): Promise<Measured[]> {
  const records = makeRecords(100, 1024, 2);
  const total = scaled(ctx, PER_REPEAT_BYTES);
  // One more repeat than asked: the first, cold (the JIT has not seen the path yet), is reported apart.
  const { pagelog, reference } = await appendPairs(ctx, records, total, ctx.repeats + 1);
  return [
    {
      row: "append-1KiB",
      unit: "MB/s",
      pagelog: pagelog.slice(1),
      reference: reference.slice(1),
      notes: [`${(total / MB).toFixed(1)} MB per repeat, after one cold repeat (append-1KiB/cold)`],
    },
    {
      row: "append-1KiB/cold",
      unit: "MB/s",
      pagelog: pagelog.slice(0, 1),
      reference: reference.slice(0, 1),
      notes: ["the first repeat of append-1KiB alone (cold only in a fresh process: not with --in-process)"],
    },
  ];
}

export async function appendInFlight(ctx: BenchContext): Promise<Measured[]> {
  const records = makeRecords(64, 1024, 3);
  const rounds = Math.max(1, Math.ceil(scaled(ctx, PER_REPEAT_BYTES) / (64 * 1100)));
  const inFlight: number[] = [];
  const batched: number[] = [];
  const run = async (one: (append: (r: readonly RecordInput[]) => Promise<unknown>) => Promise<unknown>) => {
    const path = freshDir(ctx.tmpfsDir, "in-flight");
    try {
      const opened = await openBenchLog(ctx, path);
      try {
        const append = (r: readonly RecordInput[]) => opened.log.append(r);
        const { ms } = await timed(async () => {
          for (let i = 0; i < rounds; i++) await one(append);
        });
        return mbPerSecond(opened.log.size, ms);
      } finally {
        await opened.close();
      }
    } finally {
      removeDir(path);
    }
  };
  for (let r = 0; r < ctx.repeats; r++) {
    inFlight.push(await run((append) => Promise.all(records.map((record) => append([record])))));
    batched.push(await run((append) => append(records)));
  }
  return [
    {
      row: "append-in-flight",
      unit: "MB/s",
      pagelog: inFlight,
      reference: batched,
      notes: [
        `${rounds} x 64 single-record 1 KiB appends in flight at once (Promise.all); reference: pagelog itself, the same records 64 per call`,
      ],
    },
  ];
}

/** What append-4GB appends (scaled), less when the tmpfs lacks the room, and why. */
function fourGbSize(ctx: BenchContext): { bytes: number; note: string | undefined } {
  const wanted = scaled(ctx, 4 * 1024 * MB);
  const fs = statfsSync(ctx.tmpfsDir);
  const free = Number(fs.bavail) * Number(fs.bsize);
  // The log, its indexes (under 1 %), and some room for everybody else.
  const room = Math.floor((free - 256 * MB) / 1.02);
  if (wanted <= room) return { bytes: wanted, note: undefined };
  const bytes = Math.max(MB, room);
  return {
    bytes,
    note: `tmpfs ${ctx.tmpfsDir} has ${(free / MB).toFixed(0)} MB free: appended ${(bytes / MB).toFixed(0)} MB instead of ${(wanted / MB).toFixed(0)} MB`,
  };
}

/** Repeats of append-4GB at most: each writes the whole size twice (the log, then the reference's file). */
const FOUR_GB_MAX_REPEATS = 3;

export async function append4GB(ctx: BenchContext): Promise<Measured[]> {
  const records = makeRecords(100, 1024, 4);
  const { bytes, note } = fourGbSize(ctx);
  const repeats = Math.min(ctx.repeats, FOUR_GB_MAX_REPEATS);
  const { pagelog, reference } = await appendPairs(ctx, records, bytes, repeats);
  const notes = [`${(bytes / MB).toFixed(0)} MB of 100 x 1 KiB batches into one log; goal on the peak RSS`];
  if (note !== undefined) notes.push(note);
  if (repeats < ctx.repeats)
    notes.push(`${plural(repeats, "repeat")}, not ${ctx.repeats}: each writes the whole size twice`);
  return [
    {
      row: "append-4GB",
      unit: "MB/s",
      pagelog,
      reference,
      notes,
    },
  ];
}
