/**
 * The rows on a log of 10,000 segments (scaled), one batch of 10 records each, on tmpfs:
 * `reopen-10k-segments` (a clean open, against listing and stat-ing the partition directory) and
 * `lookups` (random `read(offset)` and `offsetForTimestamp`, against opening the right segment
 * file and reading the one batch there). The log is a fixture: built once per run, by the first
 * row that needs it, in a process of its own when rows run in child processes.
 */
import { closeSync, existsSync, openSync, readdirSync, readFileSync, readSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { encodeBatch, type RecordInput, readBatchHeader } from "../../format/api.js";
import {
  type BenchContext,
  freshDir,
  makeRecords,
  openBenchLog,
  PARTITION,
  scaled,
  segmentLogFiles,
} from "../context.js";
import { below, type Measured, perSecond, timed, xorshift } from "../measure.js";

const RECORDS_PER_BATCH = 10;
/** Record `o` has timestamp T0 + o, so a timestamp names its offset. */
const T0 = 1_700_000_000_000;

interface Fixture {
  readonly path: string;
  readonly segments: number;
  readonly records: number;
}

const fixtureInfo = (ctx: BenchContext) => join(ctx.tmpfsDir, "fixture-segments.json");

/** Builds the many-segment log unless this run already has it. */
export async function buildSegmentsFixture(ctx: BenchContext): Promise<Fixture> {
  if (existsSync(fixtureInfo(ctx))) return JSON.parse(readFileSync(fixtureInfo(ctx), "utf8")) as Fixture;
  const segments = scaled(ctx, 10_000, 2);
  const path = freshDir(ctx.tmpfsDir, "fixture-segments");
  const values = makeRecords(RECORDS_PER_BATCH, 100, 7).map((r) => r.value);
  const batchOf = (base: number): RecordInput[] => values.map((value, i) => ({ value, timestamp: T0 + base + i }));
  // Every batch has the same size: a segment of exactly that many bytes holds one.
  const segmentBytes = encodeBatch(batchOf(0), { baseOffset: 0, timestamp: 0 }).length;
  // maxBatchBytes of one batch: group commit shares a batch only up to half of it, so each
  // append stays a batch of its own (and a segment of its own).
  const opened = await openBenchLog(ctx, path, { log: { segmentBytes, maxBatchBytes: segmentBytes } });
  try {
    // Many appends in flight at once: group commit writes them (and rolls between them) in one go.
    const inFlight = 250;
    for (let s = 0; s < segments; s += inFlight) {
      const n = Math.min(inFlight, segments - s);
      await Promise.all(Array.from({ length: n }, (_, i) => opened.log.append(batchOf((s + i) * RECORDS_PER_BATCH))));
    }
    if (opened.log.segmentCount !== segments)
      throw new Error(`the fixture has ${opened.log.segmentCount} segments, not ${segments}`);
  } finally {
    await opened.close();
  }
  const fixture: Fixture = { path, segments, records: segments * RECORDS_PER_BATCH };
  writeFileSync(fixtureInfo(ctx), JSON.stringify(fixture));
  return fixture;
}

export async function reopenSegments(ctx: BenchContext): Promise<Measured[]> {
  const fixture = await buildSegmentsFixture(ctx);
  const partition = join(fixture.path, PARTITION);
  const pagelog: number[] = [];
  const reference: number[] = [];
  for (let r = 0; r < ctx.repeats; r++) {
    const { ms, value: opened } = await timed(() => openBenchLog(ctx, fixture.path));
    const count = opened.log.segmentCount;
    const clean = opened.log.recovery.clean;
    await opened.close();
    if (!clean || count !== fixture.segments)
      throw new Error(`reopened ${count} segments (clean: ${clean}), expected ${fixture.segments}, clean`);
    pagelog.push(ms);
    const listed = await timed(() => {
      let bytes = 0;
      for (const name of readdirSync(partition)) bytes += statSync(join(partition, name)).size;
      return bytes;
    });
    reference.push(listed.ms);
  }
  return [
    {
      row: "reopen-10k-segments",
      unit: "ms",
      pagelog,
      reference,
      notes: [
        `clean LogDir.open + dir.log of ${fixture.segments} segments; reference: readdirSync + statSync of every file of the partition (ratio informative)`,
      ],
    },
  ];
}

/** Where each batch of the fixture is: what a lookup must at least find, open and read. */
interface BatchPlace {
  readonly file: string;
  readonly position: number;
  readonly size: number;
  readonly lastOffset: number;
  readonly maxTimestamp: number;
}

function batchPlaces(partition: string): BatchPlace[] {
  const places: BatchPlace[] = [];
  for (const file of segmentLogFiles(partition)) {
    const bytes = new Uint8Array(readFileSync(file));
    for (let at = 0; at < bytes.length;) {
      const h = readBatchHeader(bytes, at);
      places.push({ file, position: at, size: h.sizeInBytes, lastOffset: h.lastOffset, maxTimestamp: h.maxTimestamp });
      at += h.sizeInBytes;
    }
  }
  return places;
}

/** The first place whose `key` is at least `value` (binary search). */
function firstAtLeast(places: readonly BatchPlace[], key: "lastOffset" | "maxTimestamp", value: number): BatchPlace {
  let lo = 0;
  let hi = places.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (places[mid]![key] >= value) hi = mid;
    else lo = mid + 1;
  }
  return places[lo]!;
}

/** The reference lookup: open the segment file, read the batch, close. */
function readPlace(place: BatchPlace, buffer: Uint8Array): void {
  const fd = openSync(place.file, "r");
  try {
    readSync(fd, buffer, 0, place.size, place.position);
  } finally {
    closeSync(fd);
  }
}

export async function lookups(ctx: BenchContext): Promise<Measured[]> {
  const fixture = await buildSegmentsFixture(ctx);
  const places = batchPlaces(join(fixture.path, PARTITION));
  const buffer = new Uint8Array(Math.max(...places.map((p) => p.size)));
  const count = scaled(ctx, 20_000, 10);
  const draws = (seed: number) => {
    const next = xorshift(seed);
    return Array.from({ length: count }, () => below(next, fixture.records));
  };
  const opened = await openBenchLog(ctx, fixture.path);
  const read = { pagelog: [] as number[], reference: [] as number[] };
  const byTime = { pagelog: [] as number[], reference: [] as number[] };
  try {
    const log = opened.log;
    for (let r = 0; r < ctx.repeats; r++) {
      const offsets = draws(1000 + r);
      const reads = await timed(async () => {
        for (const offset of offsets) {
          const got = await log.read(offset, { maxRecords: 1 });
          if (got[0]?.offset !== offset) throw new Error(`read(${offset}) gave offset ${got[0]?.offset}`);
        }
      });
      read.pagelog.push(perSecond(count, reads.ms));
      const rawReads = await timed(() => {
        for (const offset of offsets) readPlace(firstAtLeast(places, "lastOffset", offset), buffer);
      });
      read.reference.push(perSecond(count, rawReads.ms));

      const stamps = draws(2000 + r).map((o) => T0 + o);
      const finds = await timed(async () => {
        for (const ts of stamps) {
          const got = await log.offsetForTimestamp(ts);
          if (got !== ts - T0) throw new Error(`offsetForTimestamp(${ts}) gave ${got}, expected ${ts - T0}`);
        }
      });
      byTime.pagelog.push(perSecond(count, finds.ms));
      const rawFinds = await timed(() => {
        for (const ts of stamps) readPlace(firstAtLeast(places, "maxTimestamp", ts), buffer);
      });
      byTime.reference.push(perSecond(count, rawFinds.ms));
    }
  } finally {
    await opened.close();
  }
  const reference = "reference: openSync + readSync of the one batch at its known position + closeSync";
  return [
    {
      row: "lookups/read",
      unit: "lookups/s",
      ...read,
      notes: [`${count} random log.read(offset, { maxRecords: 1 }) on ${fixture.segments} segments; ${reference}`],
    },
    {
      row: "lookups/offsetForTimestamp",
      unit: "lookups/s",
      ...byTime,
      notes: [`${count} random log.offsetForTimestamp(ts) on ${fixture.segments} segments; ${reference}`],
    },
  ];
}
