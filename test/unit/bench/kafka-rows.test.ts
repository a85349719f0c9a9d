/**
 * The bench rows beside Kafka (src/bench/rows/rows-kafka.ts, bench/kafka-side.mjs), without a
 * broker: the broker's load time and ProducerPerformance's summary are read from the lines Kafka
 * 4.1.1 really prints; the unclean start is prepared as Kafka reads it; `--rows kafka` selects both
 * rows; and where Kafka cannot run (no Java here) each row is one "skipped" line, not a failure.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { makeUnclean, parseLoad, parseProducerPerformance } from "../../../bench/kafka-side.mjs";
import { finish, skipped } from "../../../src/bench/measure.js";
import { resolveBenchOptions } from "../../../src/bench/options.js";
import { runBench } from "../../../src/bench/run-bench.js";
import { kafkaSidePath, packageRoot, reachKafka } from "../../../src/bench/rows/kafka-side.js";
import { renderJson, renderText } from "../../../src/bench/table.js";
import { benchOptionsOf } from "../../../src/cli/bench.js";

const scratch = mkdtempSync(join(tmpdir(), "pagelog-kafka-rows-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A broker's log as Kafka 4.1.1 wrote it (bench/kafka-log4j2.properties), over two starts, trimmed. */
const BROKER_LOG = `[2026-12-04 02:48:58,271] INFO Loading logs from log dirs ArrayBuffer(/tmp/x/kafka-logs) (kafka.log.LogManager)
[2026-12-04 02:48:58,296] INFO Completed load of Log(dir=/tmp/x/kafka-logs/orders-1, topicId=Rt, topic=orders, partition=1, highWatermark=0, lastStableOffset=0, logStartOffset=0, logEndOffset=7) with 1 segments, local-log-start-offset 0 and log-end-offset 7 in 3ms (1/1 completed in /tmp/x/kafka-logs) (kafka.log.LogManager)
[2026-12-04 02:49:28,730] INFO Loading logs from log dirs ArrayBuffer(/tmp/x/kafka-logs) (kafka.log.LogManager)
[2026-12-04 02:49:28,760] INFO Recovering 2 logs from /tmp/x/kafka-logs since no clean shutdown file was found (kafka.log.LogManager)
[2026-12-04 02:49:28,843] INFO [LogLoader partition=orders-1, dir=/tmp/x/kafka-logs] Recovering unflushed segment 0. 0 recovered for orders-1. (org.apache.kafka.storage.internals.log.LogLoader)
[2026-12-04 02:49:28,844] INFO [LogLoader partition=orders-10, dir=/tmp/x/kafka-logs] Recovering unflushed segment 0. 0 recovered for orders-10. (org.apache.kafka.storage.internals.log.LogLoader)
[2026-12-04 02:49:29,100] INFO Completed load of Log(dir=/tmp/x/kafka-logs/orders-10, topicId=Ab, topic=orders, partition=10, highWatermark=0, lastStableOffset=0, logStartOffset=0, logEndOffset=5) with 1 segments, local-log-start-offset 0 and log-end-offset 5 in 250ms (1/2 completed in /tmp/x/kafka-logs) (kafka.log.LogManager)
[2026-12-04 02:49:36,560] INFO [LogLoader partition=orders-1, dir=/tmp/x/kafka-logs] Recovering unflushed segment 1038400. 0 recovered for orders-1. (org.apache.kafka.storage.internals.log.LogLoader)
[2026-12-04 02:49:36,581] INFO Completed load of Log(dir=/tmp/x/kafka-logs/orders-1, topicId=RtOgd5y_SrSPg-dbcezUHA, topic=orders, partition=1, highWatermark=0, lastStableOffset=0, logStartOffset=0, logEndOffset=1038800) with 2 segments, local-log-start-offset 0 and log-end-offset 1038800 in 7756ms (2/2 completed in /tmp/x/kafka-logs) (kafka.log.LogManager)
[2026-12-04 02:49:36,591] INFO Loaded 2 logs in 7858ms (unclean log dirs = ArrayBuffer(/tmp/x/kafka-logs)) (kafka.log.LogManager)
`;

/** ProducerPerformance's output: a line per 5-second window, then the summary. */
const PRODUCER_OUTPUT = `6826 records sent, 1361.4 records/sec (1.33 MB/sec), 2169.0 ms avg latency, 3076.0 ms max latency.
50130 records sent, 10026.0 records/sec (9.79 MB/sec), 3280.8 ms avg latency, 3886.0 ms max latency.
500000 records sent, 16209.0 records/sec (15.83 MB/sec), 1708.17 ms avg latency, 3886.00 ms max latency, 1498 ms 50th, 3275 ms 95th, 3779 ms 99th, 3870 ms 99.9th.
`;

describe("the broker's own account of its load", () => {
  it("reads the partition's load of the last start: its time, segments, offsets, and the segments its recovery walked", () => {
    expect(parseLoad(BROKER_LOG, "orders-1")).toEqual({
      segments: 2,
      logStartOffset: 0,
      logEndOffset: 1038800,
      ms: 7756,
      segmentsRecovered: 2,
      unclean: true,
    });
  });

  it("never takes another partition's line for it (orders-10 is not orders-1)", () => {
    expect(parseLoad(BROKER_LOG, "orders-10")).toMatchObject({ ms: 250, segments: 1, segmentsRecovered: 1 });
    expect(parseLoad(BROKER_LOG, "orders-2")).toBeUndefined();
  });

  it("a clean start (no recovery) says so, and a log without the line gives nothing", () => {
    const clean = BROKER_LOG.split("\n").slice(0, 2).join("\n");
    expect(parseLoad(clean, "orders-1")).toMatchObject({ ms: 3, unclean: false, segmentsRecovered: 0 });
    expect(parseLoad("[x] WARN nothing here (kafka.server.KafkaConfig)", "orders-1")).toBeUndefined();
  });

  it("ProducerPerformance: the summary, not a window line", () => {
    expect(parseProducerPerformance(PRODUCER_OUTPUT)).toEqual({
      records: 500000,
      recordsPerSecond: 16209,
      mbPerSecond: 15.83,
      avgLatencyMs: 1708.17,
    });
    expect(parseProducerPerformance("Exception in thread main")).toBeUndefined();
  });
});

describe("an unclean start that walks the whole partition", () => {
  it("removes the clean-shutdown marker and puts the partition's recovery point at 0, other entries kept", () => {
    const dir = join(scratch, "unclean");
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, ".kafka_cleanshutdown"), '{"version":0,"brokerEpoch":12}');
    writeFileSync(
      join(dir, "recovery-point-offset-checkpoint"),
      "0\n3\nbench 0 1038800\nbench 10 77\nother-topic 0 5\n",
    );
    makeUnclean(dir, "bench-0");
    expect(existsSync(join(dir, ".kafka_cleanshutdown"))).toBe(false);
    const [version, count, ...entries] = readFileSync(join(dir, "recovery-point-offset-checkpoint"), "utf8")
      .trim()
      .split("\n");
    expect(version).toBe("0");
    expect(Number(count)).toBe(entries.length);
    expect(entries.sort()).toEqual(["bench 0 0", "bench 10 77", "other-topic 0 5"]);
  });
});

describe("--rows kafka", () => {
  it("selects both rows beside Kafka, once each, in the CLI and the options object", () => {
    expect(benchOptionsOf({ rows: "kafka" }).rows).toEqual(["kafka-recovery", "kafka-produce"]);
    expect(benchOptionsOf({ rows: "kafka-produce,kafka" }).rows).toEqual(["kafka-produce", "kafka-recovery"]);
    expect(resolveBenchOptions({ rows: ["records", "kafka"] }).rows).toEqual([
      "records",
      "kafka-recovery",
      "kafka-produce",
    ]);
    expect(() => benchOptionsOf({ rows: "kafkaa" })).toThrow(
      /unknown row 'kafkaa' \(rows: .*kafka \(kafka-recovery \+ kafka-produce\)/,
    );
  });
});

describe("where Kafka cannot run, each row is skipped in one line", () => {
  it("outside a checkout: the reason says what it needs", async () => {
    expect(kafkaSidePath(scratch)).toBeUndefined();
    expect(kafkaSidePath(packageRoot())).toMatch(/bench[/\\]kafka-side\.mjs$/);
    const reach = await reachKafka(scratch);
    expect(reach).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/needs a checkout of the pagelog repository/),
    });
  });

  it("printed as skipped with its reason, no figures, no goal judged; --json carries the reason", () => {
    const row = finish(skipped("kafka-recovery", "no `java` on PATH"), null);
    expect(row).toMatchObject({ row: "kafka-recovery", skipped: "no `java` on PATH", met: null, pagelog: null });
    const meta = {
      node: "v20",
      cpu: "cpu",
      cores: 2,
      dir: "/tmp",
      tmpfs: "/dev/shm",
      crc: "js",
      scale: 1,
      repeats: 3,
      mode: "x",
    };
    const text = renderText(meta, [row]);
    expect(text.split("\n").filter((l) => l.startsWith("kafka-recovery"))).toEqual([
      expect.stringMatching(/^kafka-recovery +skipped +- *$/),
      "kafka-recovery: skipped: no `java` on PATH",
    ]);
    expect(JSON.parse(renderJson(meta, [row])).rows[0]).toMatchObject({ skipped: "no `java` on PATH", met: null });
  });

  it("no java on PATH: the run completes, both rows skipped naming java, none failed", async () => {
    const path = process.env.PATH;
    process.env.PATH = join(scratch, "no-such-bin");
    const lines: string[] = [];
    try {
      const { results } = await runBench({ rows: ["kafka"], inProcess: true, dir: scratch, tmpfs: scratch }, (l) =>
        lines.push(l),
      );
      expect(results.map((r) => [r.row, r.error, r.skipped])).toEqual([
        ["kafka-recovery", undefined, expect.stringMatching(/no `java` on PATH/)],
        ["kafka-produce", undefined, expect.stringMatching(/no `java` on PATH/)],
      ]);
      expect(lines.filter((l) => / skipped: /.test(l))).toHaveLength(2);
    } finally {
      process.env.PATH = path;
    }
  });
});
