// Issue 35, the command: `pagelog mirror` (the built CLI) runs beside a writer until SIGINT or
// SIGTERM and exits 0 after committing what was in flight; a terminal gets a progress line; bad
// arguments, an unknown topic or partition and an unreachable broker are one line and exit 2.
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { freePort, REPO } from "../../scripts/kafka.mjs";
import { LogDir } from "../../src/index.js";
import { createTopic, freshTopic, groupOffsets, readTopic, until } from "./support/target.js";
import { kafkaTier } from "./support/tier.js";

const tier = kafkaTier();
const scratch = mkdtempSync(join(tmpdir(), "pagelog-mirror-cli-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const CLI = join(REPO, "dist/cli.js");
const enc = new TextEncoder();

/** A log directory with `count` flushed records in `partition`. */
async function source(partition: string, count: number): Promise<string> {
  const path = mkdtempSync(join(scratch, "src-"));
  const dir = await LogDir.open(path);
  const log = await dir.log(partition);
  await log.append(Array.from({ length: count }, (_, i) => ({ value: enc.encode(`m${i}`) })));
  await dir.close();
  return path;
}

function runCli(args: string[]) {
  const r = spawnSync(process.execPath, [CLI, "mirror", ...args], { encoding: "utf8", timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe.skipIf(tier === undefined)("pagelog mirror", () => {
  const bootstrap = tier?.bootstrap ?? "";

  it("runs until SIGTERM (and SIGINT), commits what is in flight, and exits 0", async () => {
    const path = await source("logs-0", 50);
    const topic = freshTopic("cli");
    await createTopic(bootstrap, topic);
    for (const signal of ["SIGTERM", "SIGINT"] as const) {
      const child = spawn(process.execPath, [CLI, "mirror", path, "logs-0", "--brokers", bootstrap, "--topic", topic]);
      let stderr = "";
      child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
      const exit = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
      await until("it started", () => stderr.includes("from offset"));
      await until(
        "it mirrored the records",
        async () => (await groupOffsets(bootstrap, `pagelog-mirror.${topic}`, topic)).get(0) === 50,
      );
      child.kill(signal);
      expect(await exit, stderr).toBe(0);
      expect(stderr).toMatch(/pagelog mirror: stopped: \d+ records mirrored/);
    }
    expect((await readTopic(bootstrap, topic, 50)).map((r) => r.value)).toEqual(
      Array.from({ length: 50 }, (_, i) => `m${i}`),
    );
  });

  it("on a terminal, prints a progress line: records, rate, lag in records and bytes", async () => {
    const path = await source("logs-0", 20);
    const topic = freshTopic("tty");
    await createTopic(bootstrap, topic);
    // `script` gives the command a terminal; it is stopped by a timeout's SIGTERM after 3.5 s.
    const command = `timeout --preserve-status -s TERM 3.5 ${process.execPath} ${CLI} mirror ${path} logs-0 --brokers ${bootstrap} --topic ${topic}`;
    const r = spawnSync("script", ["-qfec", command, "/dev/null"], { encoding: "utf8", timeout: 60_000 });
    expect(r.stdout).toMatch(/mirrored 20 records \(0\.0 MB\), \d+ records\/s 0\.0 MB\/s, lag 0 records \(≈ 0\.0 MB\)/);
    expect(r.status).toBe(0);
  });

  it("a start that cannot work is one line and exit 2: no broker, no topic, no partition, bad arguments", async () => {
    const path = await source("logs-0", 1);
    const topic = freshTopic("bad");
    await createTopic(bootstrap, topic);
    const nobody = `127.0.0.1:${await freePort()}`;
    const cases: Array<[string[], RegExp]> = [
      [
        [path, "logs-0", "--brokers", nobody, "--topic", topic],
        /^pagelog mirror: no Kafka broker answered at 127\.0\.0\.1:\d+/,
      ],
      [
        [path, "logs-0", "--brokers", bootstrap, "--topic", "no-such-topic"],
        /^pagelog mirror: the Kafka cluster has no topic no-such-topic/,
      ],
      [
        [path, "other-0", "--brokers", bootstrap, "--topic", topic],
        /^pagelog mirror: the log directory has no partition or topic other-0/,
      ],
      [[path, "logs-0", "--topic", topic], /^pagelog mirror: --brokers <host:port,…> is required$/],
      [
        [path, "logs-0", "--brokers", "localhost", "--topic", topic],
        /^pagelog mirror: --brokers: 'localhost' is not host:port$/,
      ],
      [[path, "logs-0", "--brokers", bootstrap, "--topic", topic, "--durable", "--no-durable"], /contradict/],
      [
        [join(path, "missing"), "logs-0", "--brokers", bootstrap, "--topic", topic],
        /^pagelog mirror: cannot read .*missing: ENOENT$/,
      ],
      [[path, "logs-0", "--brokers", bootstrap, "--topic", topic, "--sasl", "plain"], /PAGELOG_SASL_PASSWORD/],
    ];
    for (const [args, message] of cases) {
      const r = runCli(args);
      expect([r.code, r.stderr.trim().split("\n")], args.join(" ")).toEqual([2, [expect.stringMatching(message)]]);
    }
  });
});
