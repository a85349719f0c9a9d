/**
 * `pagelog tail`, in-process: the plain and JSON lines (bytes that are not text, null keys,
 * headers), --from, --from-time, --durable, reading while a writer holds the directory, --follow
 * ended by SIGINT, and the argument errors (one line, exit 2).
 */
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { encodeBatch } from "../../../src/format/api.js";
import { LogDir } from "../../../src/log/log-dir.js";
import type { Log } from "../../../src/log/log.js";
import { cli, tempDir } from "./helpers.js";

/** A closed log directory with orders-0: five text records over several segments, then one of raw bytes. */
async function sampleDir(): Promise<string> {
  const root = tempDir("tail");
  const dir = await LogDir.open(root);
  const log = await dir.log("orders-0", { segmentBytes: 300 });
  for (let i = 0; i < 5; i++)
    await log.append([{ key: `k${i}`, value: `value ${i}\nline`, headers: { h: `x${i}` }, timestamp: 1_000 + i * 10 }]);
  await log.append([
    {
      key: null,
      value: new Uint8Array([0xff, 0x00, 0x01]),
      headers: [{ key: "b", value: new Uint8Array([0xc3]) }],
      timestamp: 2_000,
    },
  ]);
  await dir.log("orders-1");
  await dir.close();
  return root;
}

/**
 * A partition as a broker leaves it after a transactional producer: a record, an aborted
 * transaction (its record and the ABORT marker), a committed one (its record and the COMMIT marker).
 */
function brokerDir(): string {
  const root = tempDir("tail-tx");
  mkdirSync(join(root, "payments-0"));
  const tx = { producerId: 5, producerEpoch: 0, baseSequence: 0, isTransactional: true };
  const marker = (baseOffset: number, type: number): Uint8Array =>
    encodeBatch([{ key: new Uint8Array([0, 0, 0, type]), value: new Uint8Array(6) }], {
      ...tx,
      baseOffset,
      timestamp: 1,
      isControl: true,
    });
  const batches = [
    encodeBatch([{ value: "plain" }], { baseOffset: 0, timestamp: 1 }),
    encodeBatch([{ value: "aborted" }], { ...tx, baseOffset: 1, timestamp: 1 }),
    marker(2, 0),
    encodeBatch([{ value: "committed" }], { ...tx, baseOffset: 3, timestamp: 1 }),
    marker(4, 1),
  ];
  writeFileSync(join(root, "payments-0", `${"0".repeat(20)}.log`), Buffer.concat(batches));
  return root;
}

describe("pagelog tail: a broker's transactions", () => {
  it("prints what a read_committed consumer reads; --isolation-level read_uncommitted adds the aborted record", async () => {
    const root = brokerDir();
    const committed = await cli(["tail", root, "payments-0"]);
    expect(committed.stderr).toBe("");
    expect(committed.stdout).toBe('0 null "plain"\n3 null "committed"\n');
    const uncommitted = await cli(["tail", root, "payments-0", "--isolation-level", "read_uncommitted"]);
    expect(uncommitted.stdout).toBe('0 null "plain"\n1 null "aborted"\n3 null "committed"\n');
    const explicit = await cli(["tail", root, "payments-0", "--isolation-level", "read_committed"]);
    expect(explicit.stdout).toBe(committed.stdout);
  });
});

describe("pagelog tail: output", () => {
  it("plain: one line per record, offset key value, text quoted and bytes in hex", async () => {
    const root = await sampleDir();
    const run = await cli(["tail", root, "orders-0"]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(
      [0, 1, 2, 3, 4].map((i) => `${i} "k${i}" "value ${i}\\nline"\n`).join("") + `5 null 0xff0001\n`,
    );
    // Read-only: nothing was written, not even a lock.
    expect(existsSync(join(root, ".lock"))).toBe(false);
  });

  it("--json: offset, timestamp, key, value, headers; bytes that are not UTF-8 are base64 with a flag", async () => {
    const root = await sampleDir();
    const run = await cli(["tail", root, "orders-0", "--json"]);
    expect(run.code).toBe(0);
    const lines = run.stdout
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toHaveLength(6);
    expect(lines[1]).toEqual({
      offset: 1,
      timestamp: 1_010,
      key: "k1",
      value: "value 1\nline",
      headers: [{ key: "h", value: "x1" }],
    });
    expect(lines[5]).toEqual({
      offset: 5,
      timestamp: 2_000,
      key: null,
      value: Buffer.from([0xff, 0, 1]).toString("base64"),
      valueBase64: true,
      headers: [{ key: "b", value: Buffer.from([0xc3]).toString("base64"), base64: true }],
    });
  });

  it("--from N starts there; --from at the end prints nothing", async () => {
    const root = await sampleDir();
    const run = await cli(["tail", root, "orders-0", "--from", "3"]);
    expect(
      run.stdout
        .split("\n")
        .filter(Boolean)
        .map((l) => l.split(" ")[0]),
    ).toEqual(["3", "4", "5"]);
    const atEnd = await cli(["tail", root, "orders-0", "--from", "6"]);
    expect([atEnd.code, atEnd.stdout]).toEqual([0, ""]);
  });

  it("--from-time: the first record at or after the time (ms or ISO 8601); past the last, nothing", async () => {
    const root = await sampleDir();
    const run = await cli(["tail", root, "orders-0", "--from-time", "1015", "--json"]);
    expect(
      run.stdout
        .trimEnd()
        .split("\n")
        .map((l) => (JSON.parse(l) as { offset: number }).offset),
    ).toEqual([2, 3, 4, 5]);
    const iso = await cli(["tail", root, "orders-0", "--from-time", new Date(1_030).toISOString()]);
    expect(iso.stdout.split("\n")[0]).toMatch(/^3 /);
    const past = await cli(["tail", root, "orders-0", "--from-time", "999999"]);
    expect([past.code, past.stdout]).toEqual([0, ""]);
  });

  it("reads while a writer has the directory open; --durable prints only what a flush made durable", async () => {
    const root = tempDir("tail-writer");
    const dir = await LogDir.open(root);
    const log = await dir.log("events-0");
    await log.append([{ value: "a" }, { value: "b" }]);
    await log.flush();
    await dir.checkpoint(); // the writer's recovery point, as a reader sees it
    await log.append([{ value: "c" }]); // in the page cache only
    try {
      const all = await cli(["tail", root, "events-0"]);
      expect(all.stdout).toBe('0 null "a"\n1 null "b"\n2 null "c"\n');
      const durable = await cli(["tail", root, "events-0", "--durable"]);
      expect(durable.stdout).toBe('0 null "a"\n1 null "b"\n');
    } finally {
      await dir.close();
    }
  });
});

describe("pagelog tail: --follow", () => {
  it("prints each record as it is appended, and SIGINT ends it with exit 0", async () => {
    const root = tempDir("tail-follow");
    const dir = await LogDir.open(root);
    let log: Log | undefined;
    try {
      log = await dir.log("orders-0", { segmentBytes: 200 });
      await log.append([{ value: "first" }]);
      await log.flush();
      let stdout = "";
      const running = cli(["tail", root, "orders-0", "--follow"], {
        stdout: { write: (t: string) => (stdout += t), isTTY: false },
      });
      const until = async (lines: number) => {
        for (let i = 0; i < 400 && stdout.split("\n").length - 1 < lines; i++)
          await new Promise((r) => setTimeout(r, 10));
      };
      await until(1);
      for (let i = 1; i < 12; i++) await log.append([{ value: `r${i}` }]); // rolls segments
      await log.flush();
      await until(12);
      process.emit("SIGINT");
      const run = await running;
      expect(run.code).toBe(0);
      expect(run.stderr).toBe("");
      expect(stdout).toBe(
        ['0 null "first"', ...Array.from({ length: 11 }, (_, i) => `${i + 1} null "r${i + 1}"`)].join("\n") + "\n",
      );
      expect(readdirSync(join(root, "orders-0")).filter((f) => f.endsWith(".log")).length).toBeGreaterThan(1);
    } finally {
      await dir.close();
    }
  });
});

describe("pagelog tail <dir> <topic>: every partition, each line with its partition", () => {
  it("prints every partition's records, each in offset order, with the partition first (plain and JSON)", async () => {
    const root = tempDir("tail-topic");
    const dir = await LogDir.open(root);
    const topic = await dir.topic("orders", { partitions: 3 });
    for (let p = 0; p < 3; p++)
      await topic.append(Array.from({ length: 3 }, (_, i) => ({ key: `k${p}`, value: `v${p}.${i}`, partition: p })));
    await dir.close();
    const run = await cli(["tail", root, "orders"]);
    expect([run.code, run.stderr]).toEqual([0, ""]);
    const lines = run.stdout.trimEnd().split("\n");
    expect(lines.length).toBe(9);
    for (let p = 0; p < 3; p++)
      expect(lines.filter((l) => l.startsWith(`${p} `))).toEqual(
        [0, 1, 2].map((i) => `${p} ${i} "k${p}" "v${p}.${i}"`),
      );
    const json = await cli(["tail", root, "orders", "--json"]);
    const first = JSON.parse(json.stdout.split("\n")[0]!) as Record<string, unknown>;
    expect(Object.keys(first)[0]).toBe("partition");
    // A partition named alone still prints plain partition lines.
    expect((await cli(["tail", root, "orders-1"])).stdout.split("\n")[0]).toBe('0 "k1" "v1.0"');
  });

  it("--follow: follows every partition of the topic and prints each new record with its partition", async () => {
    const root = tempDir("tail-topic-follow");
    const dir = await LogDir.open(root);
    try {
      const topic = await dir.topic("orders", { partitions: 4 });
      await topic.append([{ value: "first", partition: 2 }]);
      await topic.flush();
      let stdout = "";
      const running = cli(["tail", root, "orders", "--follow"], {
        stdout: { write: (t: string) => (stdout += t), isTTY: false },
      });
      const until = async (lines: number) => {
        for (let i = 0; i < 400 && stdout.split("\n").length - 1 < lines; i++)
          await new Promise((r) => setTimeout(r, 10));
      };
      await until(1);
      await topic.append([{ value: "three", partition: 3 }]);
      await topic.append([{ value: "zero", partition: 0 }]);
      await topic.flush();
      await until(3);
      process.emit("SIGINT");
      const run = await running;
      expect([run.code, run.stderr]).toEqual([0, ""]);
      expect(stdout.trimEnd().split("\n").sort()).toEqual(['0 0 null "zero"', '2 0 null "first"', '3 0 null "three"']);
    } finally {
      await dir.close();
    }
  });
});

describe("pagelog tail: argument errors are one line and exit 2", () => {
  const cases: [string, (root: string) => string[], RegExp][] = [
    ["no arguments", () => ["tail"], /expected a log directory and a partition or topic, got none/],
    ["one argument", (root) => ["tail", root], /expected a log directory and a partition or topic/],
    ["a bad partition or topic name", (root) => ["tail", root, "orders/0"], /'orders\/0' is not a partition/],
    [
      "a partition that is not there",
      (root) => ["tail", root, "orders-7"],
      /has no partition or topic orders-7 \(it holds orders-0, orders-1\)/,
    ],
    ["a topic that is not there", (root) => ["tail", root, "payments"], /has no partition or topic payments/],
    ["--from on a topic", (root) => ["tail", root, "orders", "--from", "1"], /--from is an offset of one partition/],
    [
      "--from past the end",
      (root) => ["tail", root, "orders-0", "--from", "7"],
      /--from 7 is out of range: orders-0 holds offsets 0 to 5 \(its end, 6,/,
    ],
    [
      "--from negative",
      (root) => ["tail", root, "orders-0", "--from", "-1"],
      /--from must be a non-negative integer, got '-1'/,
    ],
    [
      "--from not a number",
      (root) => ["tail", root, "orders-0", "--from", "x"],
      /--from must be a non-negative integer/,
    ],
    ["--from and --from-time", (root) => ["tail", root, "orders-0", "--from", "1", "--from-time", "5"], /give one/],
    [
      "--from-time not a time",
      (root) => ["tail", root, "orders-0", "--from-time", "yesterday"],
      /--from-time must be milliseconds since the epoch or an ISO 8601 date/,
    ],
    [
      "--isolation-level not a level",
      (root) => ["tail", root, "orders-0", "--isolation-level", "committed"],
      /--isolation-level must be read_committed or read_uncommitted, got 'committed'/,
    ],
    ["an unknown option", (root) => ["tail", root, "orders-0", "--frm", "1"], /unknown option '--frm'/],
    ["a missing directory", (root) => ["tail", join(root, "nope"), "orders-0"], /cannot read .*nope: ENOENT/],
    [
      "a partition directory",
      (root) => ["tail", join(root, "orders-0"), "orders-0"],
      /is a partition directory; tail takes the log directory/,
    ],
  ];
  for (const [what, argv, message] of cases) {
    it(what, async () => {
      const root = await sampleDir();
      const run = await cli(argv(root));
      expect(run.code).toBe(2);
      expect(run.stdout).toBe("");
      expect(run.stderr).toMatch(message);
      expect(run.stderr.trimEnd().split("\n")).toHaveLength(1);
      expect(existsSync(join(root, "nope"))).toBe(false);
    });
  }

  it("--help describes every option and the byte encodings", async () => {
    const run = await cli(["tail", "--help"]);
    expect(run.code).toBe(0);
    for (const option of [
      "--from N",
      "--from-time T",
      "--follow",
      "--durable",
      "--isolation-level",
      "--json",
      "base64",
    ])
      expect(run.stdout).toContain(option);
  });
});
