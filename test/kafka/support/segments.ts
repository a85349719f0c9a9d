// Every kind of segment pagelog writes, on real files, for Kafka's own tools to read
// (test/kafka/dump-log-segments.test.ts): rolled segments with their indexes, a segment cut by
// recovery, a compacted (cleaned and swapped) log, and gzip batches written through
// pagelog/format; with headers, null and empty keys and values, binary bytes and extreme
// timestamps, drawn from one seed.
import { readdirSync, rmSync, statSync, truncateSync } from "node:fs";
import { join } from "node:path";
import { encodeBatchAsync } from "../../../src/format/api.js";
import type { RecordInput } from "../../../src/format/api.js";
import { LogDir } from "../../../src/node.js";
import type { Isolation, Log } from "../../../src/log/log.js";
import { FsStorage } from "../../../src/storage/fs-storage.js";
import { Segment } from "../../../src/segment/segment.js";
import { rng } from "../../support/xorshift.js";

/** A record as both sides report it: bytes as lowercase hex, `null` for a null key or value. */
export interface PlainRecord {
  offset: number;
  timestamp: number;
  key: string | null;
  value: string | null;
  headers: Array<[key: string, value: string | null]>;
}

export const hex = (bytes: Uint8Array | null): string | null =>
  bytes === null ? null : Buffer.from(bytes).toString("hex");

/** Timestamps at the edges of what a batch's int64 and a time index hold, and ones that go backwards. */
const EXTREME_TIMESTAMPS = [0, 1, Number.MAX_SAFE_INTEGER, 2 ** 32, 2 ** 31 - 1, 1_700_000_000_000];

/** One random record: any of its parts may be null, empty, binary or absent. */
function drawRecord(next: (n: number) => number, i: number): RecordInput {
  const bytes = (): Uint8Array | string | null => {
    const kind = next(6);
    if (kind === 0) return null;
    if (kind === 1) return "";
    if (kind === 2) return Uint8Array.from({ length: 1 + next(40) }, () => next(256));
    return `text-${i}-${next(1000)}`.repeat(1 + next(3));
  };
  const headers: Array<{ key: string; value: Uint8Array | string | null }> = [];
  // Header keys are alphanumeric: DumpLogSegments prints them as a comma-separated list.
  for (let h = next(4); h > 0; h--) headers.push({ key: ["h", "trace", "a1", "dup"][next(4)]!, value: bytes() });
  const timestamp =
    next(4) === 0 ? EXTREME_TIMESTAMPS[next(EXTREME_TIMESTAMPS.length)]! : 1_700_000_000_000 + i * 1000 - next(5000);
  return { key: bytes(), value: bytes(), headers, timestamp };
}

async function appendDrawn(log: Log, next: (n: number) => number, batches: number, from: number): Promise<void> {
  for (let b = 0; b < batches; b++) {
    const records = Array.from({ length: 1 + next(5) }, (_, r) => drawRecord(next, from + b * 10 + r));
    await log.append(records);
  }
}

/** Every record of `log` from its start offset, as both sides report it (at `isolation`, if given). */
export async function recordsOf(log: Log, isolation?: Isolation): Promise<PlainRecord[]> {
  const out: PlainRecord[] = [];
  for await (const r of log.records({ from: log.startOffset, ...(isolation && { isolation }) })) {
    out.push({
      offset: r.offset,
      timestamp: r.timestamp,
      key: hex(r.key),
      value: hex(r.value),
      headers: r.headers.map((h) => [Buffer.from(h.key, "utf8").toString("hex"), hex(h.value)]),
    });
  }
  return out;
}

/** A partition written and closed, with what pagelog reads from it afterwards. */
export interface WrittenPartition {
  name: string;
  dir: string;
  records: PlainRecord[];
  /** Whether its batches are gzip (codec 1). */
  gzip: boolean;
  /** What it is, for the test's messages. */
  what: string;
}

const SMALL = { segmentBytes: 2048, indexIntervalBytes: 128 };
const COMPACTED = { ...SMALL, cleanupPolicy: "compact" as const, backgroundCleaning: false, minCleanableDirtyRatio: 0 };

/** Appends that roll many small segments, each with sparse index and time-index entries. */
async function rolled(root: string, next: (n: number) => number): Promise<void> {
  const dir = await LogDir.open(root);
  const log = await dir.log("rolled-0", SMALL);
  await appendDrawn(log, next, 60, 0);
  await dir.close();
}

/**
 * A torn tail: the last segment cut inside its last batch, the clean-shutdown marker and the
 * recovery-point checkpoint gone, as a power cut before any flush leaves it; reopening recovers (cuts the segment at its last whole batch and rebuilds
 * its indexes), then more appends go on from the cut.
 */
async function recovered(root: string, next: (n: number) => number): Promise<number> {
  const dir = await LogDir.open(root);
  const log = await dir.log("recovered-0", SMALL);
  await appendDrawn(log, next, 25, 1000);
  await dir.close();
  const partition = join(root, "recovered-0");
  const last = readdirSync(partition)
    .filter((f) => f.endsWith(".log"))
    .sort()
    .at(-1)!;
  const size = statSync(join(partition, last)).size;
  truncateSync(join(partition, last), size - 1 - next(20));
  // A power cut before the tail was flushed: no marker, and no recovery point that covers it.
  rmSync(join(root, ".kafka_cleanshutdown"));
  rmSync(join(root, "recovery-point-offset-checkpoint"));
  const again = await LogDir.open(root);
  const reopened = await again.log("recovered-0", SMALL);
  const cut = reopened.recovery.bytesTruncated;
  await appendDrawn(reopened, next, 10, 2000);
  await again.close();
  return cut;
}

/** A compacted log: repeated keys and tombstones, cleaned (the cleaned segments swapped in), then more appends. */
async function compacted(root: string, next: (n: number) => number): Promise<void> {
  const dir = await LogDir.open(root);
  const log = await dir.log("compacted-0", COMPACTED);
  for (let b = 0; b < 80; b++) {
    const records = Array.from({ length: 1 + next(4) }, (_, r) => {
      const drawn = drawRecord(next, 3000 + b * 10 + r);
      // A compacted log keeps only keyed records; a null value is a tombstone.
      return { ...drawn, key: `key-${next(12)}`, value: next(6) === 0 ? null : drawn.value };
    });
    await log.append(records);
  }
  // The cleaner takes only segments below the recovery point: flush first.
  await log.flush();
  const cleaned = await log.compact();
  if (cleaned.segmentsCleaned === 0) throw new Error("the compacted partition's cleaning cleaned nothing");
  await log.append([{ key: "after-cleaning", value: "v", headers: { h: "x" }, timestamp: 0 }]);
  await dir.close();
}

/**
 * gzip batches: pagelog's Log writes uncompressed batches only, but pagelog/format encodes gzip
 * ones (a tool converting data into Kafka's format); a Segment holds them with its indexes, and
 * the log then opens the partition and reads them.
 */
async function gzip(root: string, next: (n: number) => number): Promise<void> {
  const storage = await FsStorage.open(root, { create: true });
  await storage.mkdir("gzip-0");
  const segment = await Segment.open(storage, "gzip-0", 0, {
    indexIntervalBytes: 128,
    maxIndexBytes: 10 * 1024 * 1024,
    maxBatchBytes: 1048588,
  });
  let offset = 0;
  for (let b = 0; b < 30; b++) {
    const records = Array.from({ length: 1 + next(6) }, (_, r) => drawRecord(next, 5000 + b * 10 + r));
    const compression = next(4) === 0 ? "none" : "gzip";
    await segment.append(await encodeBatchAsync(records, { baseOffset: offset, compression }));
    offset += records.length;
  }
  await segment.seal();
  await segment.flush({ force: true });
  await segment.close();
}

/**
 * Writes the four partitions, each in its own log directory under `root` (so that one's recovery
 * never touches another's checkpoint entry), and reads each back through pagelog, reopened with
 * the options it was written with. `seed` fixes every draw.
 */
export async function writePartitions(
  root: string,
  seed: number,
): Promise<{ partitions: WrittenPartition[]; recoveredCut: number }> {
  const next = rng(seed);
  const at = (name: string): string => join(root, name);
  await rolled(at("rolled"), next);
  const recoveredCut = await recovered(at("recovered"), next);
  await compacted(at("compacted"), next);
  await gzip(at("gzip"), next);
  const kinds: Array<[string, string, string, boolean, object]> = [
    ["rolled", "rolled-0", "rolled segments", false, SMALL],
    ["recovered", "recovered-0", "a segment cut by recovery", false, SMALL],
    ["compacted", "compacted-0", "a compacted log", false, COMPACTED],
    ["gzip", "gzip-0", "gzip batches", true, SMALL],
  ];
  const partitions: WrittenPartition[] = [];
  for (const [where, name, what, isGzip, options] of kinds) {
    const dir = await LogDir.open(at(where));
    const log = await dir.log(name, options);
    partitions.push({ name, dir: join(at(where), name), records: await recordsOf(log), gzip: isGzip, what });
    await dir.close();
  }
  return { partitions, recoveredCut };
}
