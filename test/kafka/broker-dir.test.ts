// pagelog reads what a broker wrote (issue 34, item 4): a broker of its own (the shared one must
// keep running for the other files) takes plain, gzip, idempotent and transactional records (a
// commit, an abort, a commit) with keys, headers and null values, and a compacted topic its own
// cleaner cleans; a read_committed kafkajs consumer reads both; the broker stops cleanly; then
// `LogDir.open(<its log dir>, { readOnly: true })` opens the directory as the broker left it.
// pagelog dump and verify agree with Kafka's DumpLogSegments on every segment the broker wrote, and
// both report a planted wrong CRC and index entry.
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runProbe, type ProbeResult } from "../../scripts/kafka.mjs";
import { COMPACT, hashes, partitionsOf, PLAIN, readAll, writeBrokerDir } from "./support/broker-dir.js";
import {
  batchView,
  cli,
  dumpedView,
  kafkaBatchView,
  kafkaRecordView,
  pagelogDump,
  plainOf,
} from "./support/compare-dump.js";
import { deepDumpCall, gapsBesides, parseDump, parseProbeRecords, type DumpedFile } from "./support/dump.js";
import { filesOf, plant, type Planted } from "./support/plant.js";
import type { DumpedBatch } from "../../src/inspect/dump-model.js";
import { type PlainRecord } from "./support/segments.js";
import { kafkaTier } from "./support/tier.js";

const tier = kafkaTier();

interface Views {
  logs: string[];
  /** pagelog dump's batches (with records) of each `.log`. */
  pagelog: Map<string, DumpedBatch[]>;
  /** DumpLogSegments' dump of each `.log`, and FileRecords' records. */
  kafka: { dump: Map<string, DumpedFile>; records: Map<string, ProbeResult> };
  /** The planted copy, and DumpLogSegments' index verification and deep dump of it. */
  planted: { files: Planted; index: Map<string, DumpedFile>; log: Map<string, DumpedFile> };
}

describe.skipIf(tier === undefined)("pagelog reads the directory a broker wrote", () => {
  const scratch = mkdtempSync(join(tmpdir(), "pagelog-kafka-brokerdir-"));
  let logDir = "";
  let consumed = new Map<string, PlainRecord[]>();
  let before = new Map<string, string>();

  beforeAll(async () => {
    ({ logDir, consumed } = await writeBrokerDir(scratch));
    before = hashes(logDir);
  }, 120_000);
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  /**
   * Both tools over every `.log` the broker wrote, once for the file's tests: `pagelog dump --json
   * --records` per partition; then, in one JVM, DumpLogSegments --deep-iteration, kafka-clients'
   * FileRecords record by record, and Kafka's checks of a planted copy (support/plant.ts) of a
   * segment of the plain topic with two index entries, one entry and one CRC made wrong.
   */
  let views: Promise<Views> | undefined;
  const bothDumps = (): Promise<Views> =>
    (views ??= (async () => {
      const logs = partitionsOf(logDir).flatMap((p) => filesOf(join(logDir, p), ".log"));
      const pagelog = new Map(partitionsOf(logDir).flatMap((p) => [...pagelogDump(join(logDir, p))]));
      const index = filesOf(join(logDir, `${PLAIN}-0`), ".index").find((f) => statSync(f).size >= 16)!;
      const source = index.replace(/\.index$/, ".log");
      const planted = plant(source, join(scratch, "planted", `${PLAIN}-0`), { batches: pagelog.get(source)! });
      const [deep, plantedIndex, plantedLog, ...records] = await runProbe({
        ...tier!,
        workDir: scratch,
        calls: [
          deepDumpCall(logs),
          ["dump", "--verify-index-only", "--files", planted.index],
          deepDumpCall([planted.log]),
          ...logs.map((log) => ["records", log]),
        ],
      });
      return {
        logs,
        pagelog,
        kafka: { dump: parseDump(deep!.lines), records: new Map(logs.map((l, i) => [l, records[i]!])) },
        planted: { files: planted, index: parseDump(plantedIndex!.lines), log: parseDump(plantedLog!.lines) },
      };
    })());

  it("opens the broker's directory read-only, reads its topics and changes no byte", async () => {
    expect(readdirSync(logDir)).toEqual(
      expect.arrayContaining([".kafka_cleanshutdown", "meta.properties", "__cluster_metadata-0"]),
    );
    expect((await readAll(logDir, `${PLAIN}-0`)).length).toBeGreaterThan(0);
    expect((await readAll(logDir, `${COMPACT}-0`)).length).toBeGreaterThan(0);
    expect(hashes(logDir)).toEqual(before);
  });

  it("reads the compacted topic the broker's own cleaner cleaned, as a consumer does", async () => {
    const compact = consumed.get(COMPACT)!;
    expect(await readAll(logDir, `${COMPACT}-0`)).toEqual(compact);
    // The cleaner did drop records: fewer than the 90 sent, with offsets skipped.
    expect(compact.length).toBeLessThan(90);
  });

  it("reads exactly the committed records of a transactional topic, as a read_committed consumer", async () => {
    // read_committed is the default: no control record (commit, abort, commit, commit), not t3's
    // aborted record; plain, gzip, idempotent and committed transactional records with the same
    // offsets, keys, values, headers and timestamps.
    expect(await readAll(logDir, `${PLAIN}-0`)).toEqual(consumed.get(PLAIN));
    expect(await readAll(logDir, `${PLAIN}-0`, "read_committed")).toEqual(consumed.get(PLAIN));
  });

  it("reads the aborted record too at read_uncommitted, and never a control record", async () => {
    const committed = consumed.get(PLAIN)!;
    const read = await readAll(logDir, `${PLAIN}-0`, "read_uncommitted");
    const offsets = new Set(committed.map((r) => r.offset));
    expect(read.filter((r) => offsets.has(r.offset))).toEqual(committed);
    // The rest: t3's aborted record alone (its marker and the three commit markers are not read).
    expect(read.filter((r) => !offsets.has(r.offset)).map((r) => r.key)).toEqual([Buffer.from("t3").toString("hex")]);
  });

  // Kafka's cleaner drops a batch left empty, so a segment it rewrote may start past its base
  // offset (__transaction_state-0, compact-0): below the clean point of cleaner-offset-checkpoint
  // pagelog reads it, as Kafka does.
  it("opens and reads every partition the broker keeps, its internal topics included", async () => {
    const partitions = partitionsOf(logDir);
    expect(partitions).toEqual(
      expect.arrayContaining(["__cluster_metadata-0", "__transaction_state-0", PLAIN + "-0", COMPACT + "-0"]),
    );
    const refused: string[] = [];
    for (const name of partitions) {
      await readAll(logDir, name).catch((error: Error & { code?: string }) =>
        refused.push(`${name}: ${error.code} ${error.message}`),
      );
    }
    expect(refused).toEqual([]);
    expect(hashes(logDir)).toEqual(before);
  });

  it("pagelog verify finds the broker's transactional topic clean, as DumpLogSegments does", () => {
    const { status, output } = cli("verify", join(logDir, `${PLAIN}-0`));
    expect(status, output).toBe(0);
  });

  it("pagelog verify finds the whole broker directory clean, every partition checked, as DumpLogSegments does", () => {
    const { status, output } = cli("verify", logDir);
    expect(status, output).toBe(0);
    // Every partition checked, the KRaft metadata log too; the broker's files only noted.
    const partitions = partitionsOf(logDir);
    expect(output).toContain(`clean: ${partitions.length} partitions`);
    expect(output).not.toMatch(/not a partition directory|DAMAGED/);
  });

  it("pagelog dump and DumpLogSegments agree on every segment the broker wrote: batches, records, CRCs", async () => {
    const { logs, pagelog, kafka } = await bothDumps();
    expect([...pagelog.keys()].sort()).toEqual([...logs].sort());
    let markers = 0;
    for (const log of logs) {
      const mine = { batches: pagelog.get(log)! };
      const theirs = kafka.dump.get(log)!;
      const records = mine.batches.flatMap((b) => b.records!.map((r) => ({ r, control: b.isControl })));
      expect(
        gapsBesides(
          theirs.problems,
          records.map(({ r }) => r.offset),
        ),
        log,
      ).toEqual([]);
      expect(
        mine.batches.flatMap((b) => b.problems),
        log,
      ).toEqual([]);
      expect(mine.batches.map(batchView), log).toEqual(theirs.batches.map(kafkaBatchView));
      // DumpLogSegments' records (offsets, timestamps, keys, values, header keys; a control
      // record's meaning) and kafka-clients' FileRecords (header values too).
      expect(
        records.map(({ r, control }) => dumpedView(r, control)),
        log,
      ).toEqual(theirs.records.map(kafkaRecordView));
      expect(
        records.map(({ r }) => plainOf(r)),
        log,
      ).toEqual(parseProbeRecords(kafka.records.get(log)!.lines));
      markers += theirs.records.filter((r) => r.control?.startsWith("endTxnMarker")).length;
    }
    // The files hold what the test wrote: the four transactions' markers, gzip, transactional
    // batches, and KRaft's control records.
    expect(markers).toBe(4);
    expect([...kafka.dump.values()].some((f) => f.records.some((r) => r.control?.startsWith("LeaderChange")))).toBe(
      true,
    );
    const batches = [...kafka.dump.values()].flatMap((f) => f.batches);
    expect(batches.some((b) => b.compresscodec === "gzip")).toBe(true);
    expect(batches.some((b) => b.isTransactional && !b.isControl && b.producerId >= 0)).toBe(true);
  });

  it("pagelog verify and DumpLogSegments both report a planted wrong CRC and a planted wrong index entry in a broker's segment", async () => {
    const { planted: files } = await bothDumps();
    const planted = files.files;
    // Kafka's tool: the index entry names the wrong offset, the batch's CRC is invalid.
    expect(files.index.get(planted.index)?.problems.join("\n")).toContain(
      `Index offset: ${planted.indexOffset}, log offset: ${planted.batchLastOffset}`,
    );
    const invalid = files.log.get(planted.log)!.batches.filter((b) => b.isvalid !== "true");
    expect(invalid.map((b) => b.baseOffset)).toEqual([planted.crcBatch]);
    // pagelog verify: DAMAGED (exit 1), naming both files, the CRC's batch by its byte.
    const { status, output } = cli("verify", join(scratch, "planted", `${PLAIN}-0`));
    expect(status, output).toBe(1);
    expect(output).toMatch(
      new RegExp(`${basename(planted.log)} byte ${planted.crcPosition}: CRC 0x[0-9a-f]{8} does not match`),
    );
    expect(output).toMatch(
      new RegExp(
        `${basename(planted.index)} byte 8: entry 1: the batch at position \\d+ ends at offset ${planted.batchLastOffset}, after the entry's offset ${planted.indexOffset}`,
      ),
    );
    // pagelog dump says the same of that batch.
    const mine = pagelogDump(planted.log).get(planted.log)!;
    expect(mine.filter((b) => !b.crcValid).map((b) => b.baseOffset)).toEqual([planted.crcBatch]);
  });
});
