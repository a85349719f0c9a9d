// Kafka's own code reads pagelog's files (issue 34, item 2): DumpLogSegments --deep-iteration over
// every kind of segment pagelog writes reports every batch valid, no invalid bytes, no index or
// time-index mismatch, and the same records pagelog reads; kafka-clients' FileRecords agrees on
// header values too. And the check can fail: a planted wrong index entry and a planted wrong CRC
// are reported by Kafka's tool. Every call runs in one JVM (JVM starts are the cost here).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runProbe, type ProbeCall, type ProbeResult } from "../../scripts/kafka.mjs";
import { fileSeed } from "../support/seed.js";
import {
  deepDumpCall,
  gapsBesides,
  parseDump,
  parseProbeRecords,
  unexplainedTimeIndexProblems,
  type DumpedFile,
} from "./support/dump.js";
import { filesOf, plant, type Planted } from "./support/plant.js";
import { writePartitions, type WrittenPartition } from "./support/segments.js";
import { kafkaTier } from "./support/tier.js";

const tier = kafkaTier();
const { seed } = fileSeed(import.meta.url);

interface Run {
  partitions: WrittenPartition[];
  recoveredCut: number;
  /** Per partition: the deep dump, the index verification and sanity check, FileRecords per .log. */
  dump: Map<string, DumpedFile>;
  verify: Map<string, DumpedFile>;
  sanity: Map<string, DumpedFile>;
  records: Map<string, ProbeResult>;
  planted: { index: Map<string, DumpedFile>; crc: Map<string, DumpedFile>; crcRecords: ProbeResult; files: Planted };
}

async function run(tierInfo: NonNullable<typeof tier>, root: string): Promise<Run> {
  const { partitions, recoveredCut } = await writePartitions(join(root, "logdir"), seed);
  const logs = partitions.flatMap((p) => filesOf(p.dir, ".log"));
  const indexes = partitions.flatMap((p) => [...filesOf(p.dir, ".index"), ...filesOf(p.dir, ".timeindex")]);
  const deep = deepDumpCall([...logs, ...indexes]);
  const calls: ProbeCall[] = [
    deep,
    ["dump", "--verify-index-only", "--files", indexes.join(",")],
    ["dump", "--index-sanity-check", "--files", indexes.join(",")],
    ...logs.map((log): ProbeCall => ["records", log]),
  ];
  const [dump, verify, sanity, ...records] = await runProbe({ ...tierInfo, workDir: root, calls });
  const parsedDump = parseDump(dump!.lines);
  // The planted damage, in a second JVM: its files are copies made from what the first one read.
  const plantedDir = join(root, "planted");
  const rolled = partitions.find((p) => p.name === "rolled-0")!;
  const first = filesOf(rolled.dir, ".log")[0]!;
  const files = plant(first, plantedDir, parsedDump.get(first)!);
  const [index, crc, crcRecords] = await runProbe({
    ...tierInfo,
    workDir: root,
    calls: [["dump", "--verify-index-only", "--files", files.index], deepDumpCall([files.log]), ["records", files.log]],
  });
  return {
    partitions,
    recoveredCut,
    dump: parsedDump,
    verify: parseDump(verify!.lines),
    sanity: parseDump(sanity!.lines),
    records: new Map(logs.map((log, i) => [log, records[i]!])),
    planted: { index: parseDump(index!.lines), crc: parseDump(crc!.lines), crcRecords: crcRecords!, files },
  };
}

describe.skipIf(tier === undefined)("Kafka's DumpLogSegments reads pagelog's files", () => {
  let root = "";
  let result: Run;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "pagelog-kafka-dump-"));
    result = await run(tier!, root);
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  const partition = (name: string): WrittenPartition => result.partitions.find((p) => p.name === name)!;

  it.each(["rolled-0", "recovered-0", "compacted-0", "gzip-0"])(
    "%s: every batch valid, no invalid bytes, and the same records as pagelog reads",
    (name) => {
      const p = partition(name);
      const logs = filesOf(p.dir, ".log");
      expect(p.records.length, p.what).toBeGreaterThan(0);
      const dumped = logs.flatMap((log) => {
        const file = result.dump.get(log);
        expect(file, `${log} dumped`).toBeDefined();
        expect(
          gapsBesides(
            file!.problems,
            file!.records.map((r) => r.offset),
          ),
          log,
        ).toEqual([]);
        expect(file!.batches.length, log).toBeGreaterThan(0);
        for (const b of file!.batches) {
          expect(b.isvalid, `${log} batch at ${b.baseOffset}`).toBe("true");
          expect(b.magic).toBe(2);
        }
        return file!.records;
      });
      const codecs = new Set(logs.flatMap((log) => result.dump.get(log)!.batches.map((b) => b.compresscodec)));
      if (p.gzip) expect(codecs.has("gzip"), `${p.what}: some batches gzip`).toBe(true);
      else expect([...codecs]).toEqual(["none"]);
      // What Kafka's DumpLogSegments printed (it prints header keys, not their values).
      expect(dumped).toEqual(
        p.records.map((r) => ({
          offset: r.offset,
          timestamp: r.timestamp,
          key: r.key,
          value: r.value,
          headerKeys: r.headers.map(([k]) => Buffer.from(k, "hex").toString("utf8")).join(","),
        })),
      );
      // kafka-clients' FileRecords, record by record, header values included; CRCs checked.
      const read = logs.flatMap((log) => {
        const answer = result.records.get(log)!;
        expect(
          answer.lines.filter((l) => l.startsWith("@@probe error")),
          log,
        ).toEqual([]);
        return parseProbeRecords(answer.lines);
      });
      expect(read).toEqual(p.records);
    },
  );

  it("the recovered partition was really cut by recovery, and the compacted one has offset gaps", () => {
    expect(result.recoveredCut).toBeGreaterThan(0);
    const offsets = partition("compacted-0").records.map((r) => r.offset);
    expect(
      offsets.some((o, i) => i > 0 && o !== offsets[i - 1]! + 1),
      "cleaning dropped records",
    ).toBe(true);
  });

  it("every .index and .timeindex passes Kafka's index verification and its start-up sanity check", () => {
    for (const p of result.partitions) {
      const indexes = [...filesOf(p.dir, ".index"), ...filesOf(p.dir, ".timeindex")];
      for (const index of indexes) {
        const problems = result.verify.get(index)?.problems ?? [];
        const log = result.dump.get(index.replace(/\.(time)?index$/, ".log"));
        expect(index.endsWith(".timeindex") ? unexplainedTimeIndexProblems(problems, log) : problems, index).toEqual(
          [],
        );
        const sanity = result.sanity.get(index);
        expect(sanity?.problems, index).toEqual([]);
        // An empty index is "is empty." (no entries to check); any other must pass.
        expect(
          sanity?.other.some((l) => /passed sanity check|is empty/.test(l)),
          `${index}: ${sanity?.other.join("\n")}`,
        ).toBe(true);
      }
      // And there are entries to check: the rolled segments' indexes are not all empty.
      const entries = indexes.reduce((n, f) => n + (result.dump.get(f)?.entries.length ?? 0), 0);
      expect(entries, p.name).toBeGreaterThan(0);
    }
  });

  it("a planted wrong offset-index entry is reported as an index mismatch", () => {
    const { files, index } = result.planted;
    expect(files.indexOffset).not.toBe(files.batchLastOffset);
    const problems = index.get(files.index)?.problems ?? [];
    expect(problems.join("\n")).toMatch(new RegExp(`Mismatches in :${files.index}`));
    expect(problems.join("\n")).toContain(`Index offset: ${files.indexOffset}, log offset: ${files.batchLastOffset}`);
  });

  it("a planted wrong CRC makes Kafka's tool report the batch invalid and FileRecords refuse it", () => {
    const { files, crc, crcRecords } = result.planted;
    const batches = crc.get(files.log)!.batches;
    expect(batches.find((b) => b.baseOffset === files.crcBatch)?.isvalid).toBe("false");
    expect(batches.filter((b) => b.isvalid !== "true").map((b) => b.baseOffset)).toEqual([files.crcBatch]);
    expect(crcRecords.lines.join("\n")).toMatch(/@@probe error .*CorruptRecordException/);
  });
});

describe("unexplainedTimeIndexProblems: the one mismatch DumpLogSegments reports wrongly", () => {
  // A segment whose cleaned batches at 5 and 9 are empty (count 0), their headers' largest timestamps kept.
  const log = {
    batches: [
      { count: 0, maxTimestamp: 1000 },
      { count: 2, maxTimestamp: 2000 },
      { count: 0, maxTimestamp: 3000 },
    ],
  } as unknown as DumpedFile;
  const header = "Found timestamp mismatch in :/tmp/x/00000000000000000000.timeindex";
  const detail = (index: number, found: number): string => `  Index timestamp: ${index}, log timestamp: ${found}`;

  it("drops a file's mismatches when every one names an empty batch, however many the tool lists under it", () => {
    expect(unexplainedTimeIndexProblems([header, detail(1000, -1), detail(3000, -1)], log)).toEqual([]);
  });

  it("keeps the header and every other mismatch, and every other problem", () => {
    expect(unexplainedTimeIndexProblems([header, detail(1000, -1), detail(2000, 1999)], log)).toEqual([
      header,
      detail(2000, 1999),
    ]);
    expect(unexplainedTimeIndexProblems([header, detail(4000, -1)], log)).toEqual([header, detail(4000, -1)]);
    expect(unexplainedTimeIndexProblems([header], log)).toEqual([header]);
    expect(unexplainedTimeIndexProblems(["Index out of order", header, detail(1000, -1)], log)).toEqual([
      "Index out of order",
    ]);
  });
});
