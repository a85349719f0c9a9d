import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { LogDir } from "../../../../src/log/log-dir.js";
import { cli, flipByte, tempDir } from "../helpers.js";

const vector = (name: string) => new URL(`../../../fixtures/kafka/${name}`, import.meta.url);

/** A partition dir `t-0` holding a Kafka vector as its first segment (no index files). */
function vectorPartition(name: string): string {
  const root = tempDir("dump");
  mkdirSync(join(root, "t-0"));
  // Copy the bytes, not the file: the vectors are read-only and FsStorage opens read-write.
  writeFileSync(join(root, "t-0/00000000000000000000.log"), readFileSync(vector(name)));
  return join(root, "t-0");
}

interface JsonDump {
  files: Array<{
    kind: string;
    path: string;
    batches?: Array<Record<string, unknown> & { records?: Array<Record<string, unknown>> }>;
    entries?: Array<{ offset: number; position?: number; timestamp?: number; problem?: string }>;
    trailing?: unknown;
  }>;
}

describe("pagelog dump", () => {
  it("dump: the six-batch Kafka vector, batch by batch, every CRC valid", async () => {
    const dir = vectorPartition("kafka-broker-6-batches.bin");
    const run = await cli(["dump", dir]);
    expect(run.code).toBe(0);
    const lines = run.stdout.split("\n").filter((l) => l.startsWith("baseOffset:"));
    expect(lines).toHaveLength(6);
    lines.forEach((line, i) => {
      expect(line).toContain(`baseOffset: ${i} lastOffset: ${i} count: 1 position: ${i * 107} size: 107`);
      expect(line).toContain("compresscodec: none");
      expect(line).toContain("isvalid: true");
      expect(line).toContain("partitionLeaderEpoch: 0 producerId: -1 producerEpoch: -1 baseSequence: -1");
    });
    expect(lines[0]).toContain("CreateTime: 1539644731680");
    expect(run.stdout).toContain(`Dumping ${dir}/00000000000000000000.log`);
    expect(run.stdout).toMatch(/Summary: 6 batches, offsets 0-5, 642 bytes; every batch valid/);
  });

  it("dump --records: keys and values as UTF-8, the gzip LogAppendTime vector decoded", async () => {
    const six = await cli([
      "dump",
      "--records",
      join(vectorPartition("kafka-broker-6-batches.bin"), "00000000000000000000.log"),
    ]);
    expect(six.stdout).toContain(
      '| offset: 0 CreateTime: 1539644731680 key: "KEY-1" payload: "VALUE-Lorem ipsum dolor sit amet-1" headers: []',
    );
    expect(six.stdout).toContain(
      '| offset: 5 CreateTime: 1539644734213 key: "KEY-6" payload: "VALUE-Lorem ipsum dolor sit amet-6"',
    );
    const gzip = await cli(["dump", "--records", vectorPartition("kafka-gzip-logappendtime-batch.bin")]);
    expect(gzip.code).toBe(0);
    expect(gzip.stdout).toMatch(
      /baseOffset: 0 lastOffset: 0 count: 1 position: 0 size: 125 LogAppendTime: 1597425188809 baseTimestamp: 1597425188775 compresscodec: gzip .* isvalid: true/,
    );
    expect(gzip.stdout).toContain(
      '| offset: 0 LogAppendTime: 1597425188809 key: "key-0" payload: "value-0-2020-08-14T17:13:08.682Z"',
    );
  });

  it("dump --json: one document with every header field; bytes that are not printable come out as hex", async () => {
    const dir = tempDir("dump-json");
    const logDir = await LogDir.open(dir);
    const log = await logDir.log("bin-0");
    await log.append([{ key: new Uint8Array([0, 1, 0xff]), value: "text", headers: { h: new Uint8Array([7]) } }]);
    await logDir.close();
    const run = await cli(["dump", "--json", "--records", join(dir, "bin-0")]);
    expect(run.code).toBe(0);
    const dump = JSON.parse(run.stdout) as JsonDump;
    const log0 = dump.files.find((f) => f.kind === "log")!;
    expect(log0.batches![0]).toMatchObject({
      position: 0,
      baseOffset: 0,
      lastOffset: 0,
      count: 1,
      crcValid: true,
      compression: "none",
      timestampType: "CreateTime",
      magic: 2,
    });
    expect(log0.batches![0]!.records![0]).toMatchObject({
      offset: 0,
      key: "0001ff",
      keyEncoding: "hex",
      value: "text",
      valueEncoding: "utf8",
      headers: [{ key: "h", value: "07", valueEncoding: "hex" }],
    });
    expect(dump.files.map((f) => f.kind)).toEqual(["log", "index", "timeindex"]);
  });

  it("dump: a pagelog-written partition, with index and time index entries checked against the log", async () => {
    const dir = tempDir("dump-pagelog");
    const logDir = await LogDir.open(dir);
    const log = await logDir.log("sensors-0", { segmentBytes: 2000, indexIntervalBytes: 200 });
    for (let i = 0; i < 40; i++)
      await log.append([{ key: `sensor-${i}`, value: `reading ${i}`, timestamp: 1_700_000_000_000 + i }]);
    await logDir.close();
    const run = await cli(["dump", join(dir, "sensors-0")]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      /Dumping .*sensors-0\/00000000000000000000\.index\n\(entries checked against 00000000000000000000\.log\)\noffset: \d+ position: \d+\n/,
    );
    expect(run.stdout).toMatch(
      /Dumping .*sensors-0\/00000000000000000000\.timeindex\n\(entries checked against 00000000000000000000\.log\)\ntimestamp: 1700000000\d+ offset: \d+\n/,
    );
    expect(run.stdout).not.toMatch(/MISMATCH|DAMAGED/);
    const segments = run.stdout.match(/Dumping .*\.log$/gm) ?? [];
    expect(segments.length).toBeGreaterThan(1);
    const json = JSON.parse((await cli(["dump", "--json", join(dir, "sensors-0")])).stdout) as JsonDump;
    const index = json.files.find((f) => f.kind === "index")!;
    expect(index.entries!.length).toBeGreaterThan(0);
    expect(index.entries!.every((e) => e.problem === undefined)).toBe(true);
    // Every entry points at the start of a batch that ends at the entry's offset.
    const batches = json.files.find((f) => f.kind === "log")!.batches!;
    for (const e of index.entries!) expect(batches.find((b) => b.position === e.position)?.lastOffset).toBe(e.offset);
  });

  it("dump: a flipped byte shows as isvalid: false, a bad index entry as a MISMATCH naming its byte", async () => {
    const dir = vectorPartition("kafka-broker-6-batches.bin");
    flipByte(join(dir, "00000000000000000000.log"), 2 * 107 + 80);
    const index = Buffer.alloc(16);
    index.writeInt32BE(1, 0);
    index.writeInt32BE(107, 4);
    index.writeInt32BE(3, 8);
    index.writeInt32BE(300, 12); // not a batch boundary
    writeFileSync(join(dir, "00000000000000000000.index"), index);
    const run = await cli(["dump", dir]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/baseOffset: 2 lastOffset: 2 count: 1 position: 214 .* isvalid: false/);
    expect(run.stdout).toContain("DAMAGED at byte 214: CRC");
    expect(run.stdout).toContain("offset: 1 position: 107\n");
    expect(run.stdout).toContain(
      "offset: 3 position: 300 MISMATCH at byte 8: no batch starts at position 300 of the .log",
    );
  });

  it("dump: a torn tail is reported with its position, not a crash", async () => {
    const dir = vectorPartition("kafka-broker-6-batches.bin");
    const path = join(dir, "00000000000000000000.log");
    writeFileSync(path, readFileSync(path).subarray(0, 5 * 107 + 40));
    const run = await cli(["dump", path]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("40 bytes at position 535 are not a whole batch");
  });

  it("dump: bad arguments are one-line errors", async () => {
    const empty = tempDir("dump-empty");
    for (const argv of [
      ["dump"],
      ["dump", "/nonexistent/pagelog/x"],
      ["dump", empty],
      ["dump", "--bogus", empty],
      ["dump", empty, empty],
    ]) {
      const run = await cli(argv);
      expect(run.code, argv.join(" ")).toBe(2);
      expect(run.stderr, argv.join(" ")).toMatch(/^pagelog dump: [^\n]+\n$/);
    }
    expect((await cli(["dump", "--help"])).stdout).toMatch(/^pagelog dump <file\|partition-dir>/);
  });

  it("dump: copying a vector keeps the bytes identical (fixture sanity)", () => {
    const dir = tempDir("copy");
    copyFileSync(vector("kafka-broker-6-batches.bin"), join(dir, "x"));
    expect(readFileSync(join(dir, "x")).length).toBe(642);
  });
});

describe("pagelog dump on files it may not write", () => {
  it("dump: reads the shared Kafka vector in place, opening it read-only", async () => {
    const { fileURLToPath } = await import("node:url");
    const vector = fileURLToPath(new URL("../../../fixtures/kafka/kafka-broker-6-batches.bin", import.meta.url));
    const run = await cli(["dump", vector]);
    expect(run.code).toBe(0);
    expect(run.stdout.match(/isvalid: true/g)).toHaveLength(6);
  });
});
