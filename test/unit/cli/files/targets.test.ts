/**
 * What verify and dump take: a log directory, a partition directory, a segment file. A folder
 * whose subfolders merely look like partitions (node_modules/crc-32, /etc/dbus-1) and a file that
 * is not a segment (package.json) are usage errors (exit 2) saying what they are not.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { LogDir } from "../../../../src/log/log-dir.js";
import { cli, tempDir } from "../helpers.js";

const vector = readFileSync(new URL("../../../fixtures/kafka/kafka-broker-6-batches.bin", import.meta.url));

/** A log directory with one partition of three records, cleanly closed. */
async function logDir(): Promise<string> {
  const root = tempDir("targets");
  const dir = await LogDir.open(root);
  const log = await dir.log("orders-0");
  await log.append([{ value: "a" }, { value: "b" }, { value: "c" }]);
  await dir.close();
  return root;
}

describe("verify: what is a log directory", () => {
  it("a folder of packages (crc-32/index.js) is not a log directory: exit 2, one line", async () => {
    const root = tempDir("node-modules");
    for (const pkg of ["crc-32", "left-pad"]) {
      mkdirSync(join(root, pkg));
      writeFileSync(join(root, pkg, "index.js"), "module.exports = 1;\n");
      writeFileSync(join(root, pkg, "package.json"), "{}\n");
    }
    const run = await cli(["verify", root]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^pagelog verify: .* is not a log directory: [^\n]+\n$/);
    expect(run.stdout).toBe("");
  });

  it("a folder like /etc (dbus-1/system.conf, polkit-1/, hosts) is not a log directory", async () => {
    const root = tempDir("etc");
    mkdirSync(join(root, "dbus-1"));
    writeFileSync(join(root, "dbus-1", "system.conf"), "<busconfig/>\n");
    mkdirSync(join(root, "polkit-1"));
    writeFileSync(join(root, "hosts"), "127.0.0.1 localhost\n");
    const run = await cli(["verify", root]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/is not a log directory/);
  });

  it("an empty log directory made by LogDir.open and close verifies clean, exit 0", async () => {
    const root = tempDir("empty-logdir");
    await (await LogDir.open(root)).close();
    const run = await cli(["verify", root]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^clean: 0 partitions, 0 segments/m);
  });

  it("a log directory with an empty partition says 'no records', not 'offsets 0--1'", async () => {
    const root = tempDir("empty-partition");
    const dir = await LogDir.open(root);
    await dir.log("t-0");
    await dir.close();
    const run = await cli(["verify", root]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^t-0: 1 segment, no records \(next offset 0\), 0 bytes$/m);
    expect(run.stdout).not.toMatch(/--1/);
  });

  it("without any log-directory file, a partition directory of segment files is enough", async () => {
    const root = tempDir("bare");
    mkdirSync(join(root, "t-0"));
    writeFileSync(join(root, "t-0", "00000000000000000000.log"), vector);
    const run = await cli(["verify", root]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^clean: 1 partition, 1 segment/m);
  });

  it("a broker's own files are a partition's: KRaft's metadata log is checked, a .deleted segment only noted", async () => {
    const root = await logDir();
    // __cluster_metadata-0 as a KRaft broker leaves it: segments, quorum-state, a snapshot.
    const meta = join(root, "__cluster_metadata-0");
    mkdirSync(meta);
    writeFileSync(join(meta, "00000000000000000000.log"), vector);
    writeFileSync(join(meta, "quorum-state"), '{"leaderId":1,"leaderEpoch":1,"votedId":-1,"data_version":1}');
    writeFileSync(join(meta, "00000000000000000000-0000000000.checkpoint"), "snapshot");
    writeFileSync(join(meta, "00000000000000000000-0000000000.checkpoint.part"), "snapshot being written");
    for (const other of ["leader-epoch-checkpoint", "partition.metadata", "00000000000000000000.snapshot"])
      writeFileSync(join(meta, other), "");
    // A segment the broker deleted a moment before it stopped: renamed, not yet removed.
    writeFileSync(join(root, "orders-0", "00000000000000000000.log.deleted"), vector);
    const run = await cli(["verify", root]);
    expect(run.stdout + run.stderr).not.toMatch(/not a partition directory|DAMAGED/);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^clean: 2 partitions, 2 segments/m);
    expect(run.stdout).toMatch(/^__cluster_metadata-0: 1 segment, offsets 0-/m);
    expect(run.stdout).toMatch(/^note: orders-0\/00000000000000000000\.log\.deleted: a deleted segment's file/m);
  });

  it("a partition-looking folder holding foreign files is not a partition: not checked, and said so", async () => {
    const root = await logDir();
    mkdirSync(join(root, "notes-1"));
    writeFileSync(join(root, "notes-1", "README.md"), "# notes\n");
    const run = await cli(["verify", root]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^clean: 1 partition, 1 segment/m);
    expect(run.stdout).toMatch(/^note: notes-1: not a partition directory \(it holds README\.md[^\n]*: not checked$/m);
    expect(run.stdout).not.toMatch(/^notes-1:/m);

    // Alone, such a folder is no evidence of a log directory either.
    const lookalike = tempDir("lookalike");
    mkdirSync(join(lookalike, "notes-1"));
    writeFileSync(join(lookalike, "notes-1", "00000000000000000000.log"), vector);
    writeFileSync(join(lookalike, "notes-1", "README.md"), "# notes\n");
    expect((await cli(["verify", lookalike])).code).toBe(2);
  });

  it("a partition directory named directly must hold only partition files", async () => {
    const root = await logDir();
    expect((await cli(["verify", join(root, "orders-0")])).code).toBe(0);
    writeFileSync(join(root, "orders-0", "leader-epoch-checkpoint"), "0\n0\n"); // Kafka's: fine
    expect((await cli(["verify", join(root, "orders-0")])).code).toBe(0);
    writeFileSync(join(root, "orders-0", "todo.txt"), "x\n");
    const run = await cli(["verify", join(root, "orders-0")]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^pagelog verify: .*orders-0 is not a partition directory: it holds todo\.txt[^\n]*\n$/);
  });
});

describe("dump: what is a segment file or a partition directory", () => {
  it("package.json is not a segment file: exit 2, one line, nothing printed", async () => {
    const root = tempDir("pkg");
    writeFileSync(join(root, "package.json"), '{ "name": "x" }\n');
    const run = await cli(["dump", join(root, "package.json")]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^pagelog dump: .*package\.json is not a segment file: [^\n]+\n$/);
    expect(run.stdout).toBe("");
    // Neither is an empty file, or a .log-named one that does not start with a batch.
    writeFileSync(join(root, "empty"), "");
    expect((await cli(["dump", join(root, "empty")])).code).toBe(2);
    writeFileSync(join(root, "notes.log"), "2026-12-01 started\n".repeat(20));
    expect((await cli(["dump", join(root, "notes.log")])).code).toBe(2);
  });

  it("a file named as a segment is dumped whatever it holds (damage is printed, exit 0)", async () => {
    const root = tempDir("named");
    writeFileSync(join(root, "00000000000000000000.log"), '{ "name": "x" }\n');
    const run = await cli(["dump", join(root, "00000000000000000000.log")]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/are not a whole batch/);
  });

  it("a copied vector under another name is dumped when it starts with a whole, valid batch", async () => {
    const root = tempDir("copied");
    writeFileSync(join(root, "vector.bin"), vector);
    const run = await cli(["dump", join(root, "vector.bin")]);
    expect(run.code).toBe(0);
    expect(run.stdout.match(/isvalid: true/g)).toHaveLength(6);
    const flipped = Buffer.from(vector);
    flipped[80] = flipped[80]! ^ 0x40; // inside the first batch: its CRC no longer matches
    writeFileSync(join(root, "flipped.bin"), flipped);
    expect((await cli(["dump", join(root, "flipped.bin")])).code).toBe(2);
  });

  it("a log directory, or a folder of other files, is not a partition directory: exit 2 naming what to give", async () => {
    const root = await logDir();
    const run = await cli(["dump", root]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /is a log directory, not a partition directory: name one of its partitions \(orders-0\)/,
    );
    writeFileSync(join(root, "orders-0", "todo.txt"), "x\n");
    const foreign = await cli(["dump", join(root, "orders-0")]);
    expect(foreign.code).toBe(2);
    expect(foreign.stderr).toMatch(/is not a partition directory: it holds todo\.txt/);
  });
});
