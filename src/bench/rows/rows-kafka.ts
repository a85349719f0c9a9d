/**
 * The rows beside Apache Kafka, on the real disk (docs/performance.md, "Against Kafka"): a local
 * broker from the kafka test tier's Maven jars (kafka-side.ts), run with Kafka's production JVM
 * flags. `kafka-recovery`: one unclean partition of 1 KiB records written by pagelog, in two
 * copies, the broker loading one (its own "Completed load" time) and `pagelog recover` the other,
 * each from offset 0 on a dropped page cache; `kafka-recovery/disk-read` holds pagelog to a cold
 * read of the same files. `kafka-produce`: Kafka's ProducerPerformance (acks=1) into the broker
 * against pagelog's in-process appends of the same records, one record per call as a producer's
 * `send`; `kafka-produce/raw-write` holds pagelog to `writeSync` of as many bytes. At most 3
 * repeats: each moves a GiB. Skipped, in one line, where Kafka cannot run.
 */
import { execFileSync } from "node:child_process";
import { closeSync, existsSync, openSync, readFileSync, readSync, rmSync, statSync, writeSync } from "node:fs";
import { join } from "node:path";
import { CLEAN_SHUTDOWN_FILE, RECOVERY_POINT_CHECKPOINT } from "../../log/log-dir.js";
import {
  type BenchContext,
  buildLog,
  freshDir,
  makeRecords,
  openBenchLog,
  PARTITION,
  removeDir,
  scaled,
  segmentLogFiles,
} from "../context.js";
import { keep, MB, type Measured, mbPerSecond, perSecond, skipped, stats, timed } from "../measure.js";
import { type KafkaReach, reachKafka } from "./kafka-side.js";

/** The partition both sides recover: pagelog's bench partition, topic "bench" on the broker. */
const TOPIC = PARTITION.slice(0, PARTITION.lastIndexOf("-"));
/** The recovered partition's size (scaled): at least 1 GB, as issue 34 asks. */
const RECOVERY_BYTES = 1 << 30;
/**
 * Records ProducerPerformance and pagelog each write per repeat (scaled): 512 MiB of values, long
 * enough for the producer's JVM to warm up (its first 5-second windows run at a tenth of its
 * pace on 2 cores), short enough for three repeats in about two minutes.
 */
const PRODUCE_RECORDS = 1 << 19;
const RECORD_BYTES = 1024;
/** pagelog's appends in flight at once in `kafka-produce`, as a producer's sends not yet acknowledged. */
const IN_FLIGHT = 1024;
const MAX_REPEATS = 3;

type Reached = Extract<KafkaReach, { ok: true }>;

const repeatsOf = (ctx: BenchContext) => Math.min(ctx.repeats, MAX_REPEATS);
const median = (values: readonly number[]) => stats(values).median;
/** `a / b` of two medians, in two significant digits. */
const share = (a: readonly number[], b: readonly number[]) => (median(a) / median(b)).toPrecision(2);
const totalSize = (files: readonly string[]) => files.reduce((n, f) => n + statSync(f).size, 0);

/** What `kafka-recovery` sets up once: the broker holding one copy, pagelog's root the other. */
interface RecoverySetup {
  readonly brokerDir: string;
  readonly brokerLogDir: string;
  readonly pagelogRoot: string;
  readonly logBytes: number;
  readonly segments: number;
  readonly endOffset: number;
}

/**
 * pagelog writes the partition (100 × 1 KiB per append, four in flight: one group commit, one
 * batch of 400 records each; closed cleanly); the broker creates the topic,
 * stops cleanly, and takes a copy of pagelog's segment files in place of its own.
 */
async function prepareRecovery(ctx: BenchContext, k: Reached, work: string): Promise<RecoverySetup> {
  const pagelogRoot = join(work, "pagelog");
  await buildLog(ctx, pagelogRoot, scaled(ctx, RECOVERY_BYTES), makeRecords(100, RECORD_BYTES, 34));
  const opened = await openBenchLog(ctx, pagelogRoot);
  const endOffset = opened.log.endOffset;
  await opened.close();
  const brokerDir = join(work, "broker");
  const broker = await k.side.startBenchBroker({ classpath: k.classpath, dir: brokerDir });
  try {
    await k.side.createTopic(broker.bootstrap, TOPIC);
  } finally {
    await broker.stop({ graceful: true });
  }
  k.side.adoptPartition(broker.logDir, join(pagelogRoot, PARTITION), PARTITION);
  const files = segmentLogFiles(join(pagelogRoot, PARTITION));
  return {
    brokerDir,
    brokerLogDir: broker.logDir,
    pagelogRoot,
    logBytes: totalSize(files),
    segments: files.length,
    endOffset,
  };
}

/** One unclean start of the broker on its copy: the partition's load time, checked to have walked it all. */
async function kafkaLoad(k: Reached, setup: RecoverySetup): Promise<{ ms: number; dropped: boolean }> {
  k.side.makeUnclean(setup.brokerLogDir, PARTITION);
  const dropped = k.side.settle();
  const broker = await k.side.startBenchBroker({ classpath: k.classpath, dir: setup.brokerDir, restart: true });
  try {
    const load = k.side.parseLoad(readFileSync(broker.logFile, "utf8"), PARTITION);
    if (load === undefined)
      throw new Error(`the broker's log (${broker.logFile}) has no "Completed load" line for ${PARTITION}`);
    if (!load.unclean || load.segmentsRecovered !== setup.segments || load.logEndOffset !== setup.endOffset)
      throw new Error(
        `the broker did not recover the whole partition: ${JSON.stringify(load)}, pagelog's ${setup.segments} segments to offset ${setup.endOffset}`,
      );
    return { ms: load.ms, dropped };
  } finally {
    await broker.stop();
  }
}

/** `pagelog recover --json` on pagelog's copy, no marker and no recovery point: its own duration. */
function pagelogRecover(k: Reached, setup: RecoverySetup): number {
  rmSync(join(setup.pagelogRoot, CLEAN_SHUTDOWN_FILE), { force: true });
  rmSync(join(setup.pagelogRoot, RECOVERY_POINT_CHECKPOINT), { force: true });
  const cli = join(k.root, "dist/cli.js");
  if (!existsSync(cli)) throw new Error("pagelog recover needs the built CLI (npm run build)");
  k.side.settle();
  const out = execFileSync(process.execPath, [cli, "recover", "--json", setup.pagelogRoot], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "ignore"],
  });
  const totals = (JSON.parse(out) as { totals: { clean: boolean; bytesScanned: number; durationMs: number } }).totals;
  if (totals.clean || totals.bytesScanned !== setup.logBytes)
    throw new Error(`pagelog recover scanned ${totals.bytesScanned} bytes of ${setup.logBytes}`);
  return totals.durationMs;
}

/** The raw limit: a cold sequential read of the same `.log` files, 1 MiB per `readSync`; and the CRC-32C of each chunk, timed apart. */
function coldRead(ctx: BenchContext, k: Reached, setup: RecoverySetup): { readMs: number; crcMs: number } {
  k.side.settle();
  const buffer = new Uint8Array(MB);
  let readMs = 0;
  let crcMs = 0;
  for (const file of segmentLogFiles(join(setup.pagelogRoot, PARTITION))) {
    const fd = openSync(file, "r");
    try {
      for (;;) {
        let start = performance.now();
        const n = readSync(fd, buffer, 0, MB, null);
        readMs += performance.now() - start;
        if (n === 0) break;
        start = performance.now();
        keep(ctx.crc(buffer.subarray(0, n)));
        crcMs += performance.now() - start;
      }
    } finally {
      closeSync(fd);
    }
  }
  return { readMs, crcMs };
}

export async function kafkaRecovery(ctx: BenchContext): Promise<Measured[]> {
  const k = await reachKafka();
  if (!k.ok) return [skipped("kafka-recovery", k.reason)];
  const work = freshDir(ctx.diskDir, "kafka-recovery");
  try {
    const setup = await prepareRecovery(ctx, k, work);
    const pagelog: number[] = [];
    const kafka: number[] = [];
    const disk: number[] = [];
    const crc: number[] = [];
    let warm = false;
    for (let r = 0; r < repeatsOf(ctx); r++) {
      const load = await kafkaLoad(k, setup);
      warm ||= !load.dropped;
      kafka.push(mbPerSecond(setup.logBytes, load.ms));
      pagelog.push(mbPerSecond(setup.logBytes, pagelogRecover(k, setup)));
      const read = coldRead(ctx, k, setup);
      disk.push(mbPerSecond(setup.logBytes, read.readMs));
      crc.push(mbPerSecond(setup.logBytes, read.crcMs));
    }
    const cache = warm
      ? "both ran on a warm page cache (dropping it needs root)"
      : "the page cache dropped before each";
    const size = `${(setup.logBytes / MB).toFixed(0)} MB`;
    return [
      {
        row: "kafka-recovery",
        unit: "MB/s",
        pagelog,
        reference: kafka,
        notes: [
          `one unclean partition of ${size} (${setup.segments} segments of 1 KiB records, 400 a batch: 100 per append, 4 in flight) written by pagelog, in two copies, no clean-shutdown marker, recovery point 0 (the whole partition walked; checked on both sides); ${cache}`,
          `reference: Apache Kafka ${k.side.KAFKA_VERSION}'s broker (Kafka's production JVM flags) starting on one copy: its "Completed load of Log(…) … in T ms" for the partition; pagelog: \`pagelog recover --json\` on the other, its durationMs (with pagelog's default CRC-32C: recover has no --crc)`,
        ],
      },
      {
        row: "kafka-recovery/disk-read",
        unit: "MB/s",
        pagelog,
        reference: disk,
        notes: [
          `reference: a cold sequential read of the same .log files, 1 MiB per readSync; Kafka reaches ${share(kafka, disk)} of it; pagelog's CRC-32C of the same chunks: ${median(crc).toFixed(0)} MB/s`,
        ],
      },
    ];
  } finally {
    removeDir(work);
  }
}

/** The payload ProducerPerformance sends with --record-size: random uppercase letters, one value for every record. */
function payload(): Uint8Array {
  const random = makeRecords(1, RECORD_BYTES, 1024)[0]!.value as Uint8Array;
  return random.map((b) => 65 + (b % 26));
}

/**
 * pagelog's in-process append of `count` records of `value`, one record per `append` call as a
 * producer's `send`, at most IN_FLIGHT unresolved (the group commit batches them); flushing off, as
 * the broker's. Timed from the first call to the last resolving; the clean close is not timed.
 */
async function pagelogProduce(
  ctx: BenchContext,
  path: string,
  count: number,
): Promise<{ ms: number; logBytes: number }> {
  const record = { value: payload() };
  const opened = await openBenchLog(ctx, path);
  try {
    const ring: Promise<unknown>[] = [];
    const { ms } = await timed(async () => {
      for (let i = 0; i < count; i++) {
        if (i >= IN_FLIGHT) await ring[i % IN_FLIGHT];
        ring[i % IN_FLIGHT] = opened.log.append([record]);
      }
      await Promise.all(ring);
    });
    return { ms, logBytes: opened.log.size };
  } finally {
    await opened.close();
  }
}

/** The raw limit: `writeSync` of `bytes` into a fresh file on the same disk, 1 MiB per call, no fsync. */
function rawWrite(path: string, bytes: number): number {
  const chunk = new Uint8Array(MB).fill(65);
  const fd = openSync(path, "w");
  try {
    const { ms } = timedSync(() => {
      for (let done = 0; done < bytes;) done += writeSync(fd, chunk, 0, Math.min(MB, bytes - done));
    });
    return mbPerSecond(bytes, ms);
  } finally {
    closeSync(fd);
    rmSync(path, { force: true });
  }
}

function timedSync(fn: () => void): { ms: number } {
  const start = performance.now();
  fn();
  return { ms: performance.now() - start };
}

interface ProduceRepeat {
  readonly pagelog: { ms: number; logBytes: number };
  readonly kafka: { recordsPerSecond: number; mbPerSecond: number };
  readonly raw: number;
}

/** One repeat: Kafka and pagelog in turn (which goes first alternates), each after a `sync`; then the raw write. */
async function produceRepeat(
  ctx: BenchContext,
  k: Reached,
  bootstrap: string,
  work: string,
  r: number,
): Promise<ProduceRepeat> {
  const count = scaled(ctx, PRODUCE_RECORDS, 1000);
  const topic = `produce-${r}`;
  await k.side.createTopic(bootstrap, topic);
  const path = join(work, `pagelog-${r}`);
  const runKafka = () => {
    k.side.settle(false);
    return k.side.producerPerformance({
      classpath: k.classpath,
      bootstrap,
      topic,
      records: count,
      recordSize: RECORD_BYTES,
    });
  };
  const runPagelog = () => {
    k.side.settle(false);
    return pagelogProduce(ctx, path, count);
  };
  let kafka;
  let pagelog;
  if (r % 2 === 0) {
    kafka = await runKafka();
    pagelog = await runPagelog();
  } else {
    pagelog = await runPagelog();
    kafka = await runKafka();
  }
  removeDir(path);
  k.side.settle(false);
  return { pagelog, kafka, raw: rawWrite(join(work, "raw"), pagelog.logBytes) };
}

export async function kafkaProduce(ctx: BenchContext): Promise<Measured[]> {
  const k = await reachKafka();
  if (!k.ok) return [skipped("kafka-produce", k.reason)];
  const work = freshDir(ctx.diskDir, "kafka-produce");
  const count = scaled(ctx, PRODUCE_RECORDS, 1000);
  try {
    const broker = await k.side.startBenchBroker({ classpath: k.classpath, dir: join(work, "broker") });
    const repeats: ProduceRepeat[] = [];
    try {
      for (let r = 0; r < repeatsOf(ctx); r++) repeats.push(await produceRepeat(ctx, k, broker.bootstrap, work, r));
    } finally {
      await broker.stop();
    }
    const values = count * RECORD_BYTES;
    return [
      {
        row: "kafka-produce",
        unit: "records/s",
        pagelog: repeats.map((x) => perSecond(count, x.pagelog.ms)),
        reference: repeats.map((x) => x.kafka.recordsPerSecond),
        notes: [
          `${count} records of 1 KiB per repeat; reference: Apache Kafka ${k.side.KAFKA_VERSION}'s ProducerPerformance (acks=1, unthrottled, its default batching) into the local broker (Kafka's production JVM flags, no fsync); pagelog: log.append of one record per call, up to ${IN_FLIGHT} in flight, flushing off, on the same disk`,
        ],
      },
      {
        row: "kafka-produce/bytes",
        unit: "MB/s",
        pagelog: repeats.map((x) => mbPerSecond(values, x.pagelog.ms)),
        reference: repeats.map((x) => x.kafka.mbPerSecond),
        notes: ["MB/s of record values (ProducerPerformance's own measure), both sides"],
      },
      {
        row: "kafka-produce/raw-write",
        unit: "MB/s",
        pagelog: repeats.map((x) => mbPerSecond(x.pagelog.logBytes, x.pagelog.ms)),
        reference: repeats.map((x) => x.raw),
        notes: [
          `MB/s of log bytes; reference: writeSync of as many bytes into one file on the same disk, 1 MiB per call, no fsync; Kafka reaches ${share(
            repeats.map((x) => x.kafka.mbPerSecond),
            repeats.map((x) => x.raw),
          )} of it (in values)`,
        ],
      },
    ];
  } finally {
    removeDir(work);
  }
}
