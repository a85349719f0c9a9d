/**
 * The built CLI (dist/cli.js: run `npm run build` first): `pagelog tail --follow` in a process of
 * its own, beside a writer (this process) that holds the directory and appends across segment
 * rolls; then SIGINT. It must exit 0 without a word on stderr, having printed every record once,
 * in offset order, and the directory must hold nothing the reader wrote. Beside a writer that
 * compacts, deletes records and truncates (seeded), each line is a record appended at its offset,
 * offsets increasing, and the tail ends 0 on SIGINT or 1 with one line naming the truncation.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { LogDir } from "../../src/log/log-dir.js";
import { testSeed } from "../support/seed.js";
import { rng } from "../support/xorshift.js";

const CLI = "dist/cli.js";
let root: string | undefined;

beforeAll(() => {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build before this test`);
});

afterEach(() => {
  if (root !== undefined) rmSync(root, { recursive: true, force: true });
  root = undefined;
});

describe("pagelog tail --follow in its own process", () => {
  it("prints every record a writer appends once, in order, and exits 0 on SIGINT", async () => {
    root = mkdtempSync(join(tmpdir(), "pagelog-tail-"));
    const dir = await LogDir.open(root);
    const log = await dir.log("orders-0", { segmentBytes: 4096 });
    await log.append([{ key: "k0", value: "before the tail started" }]);
    const child = spawn(process.execPath, [CLI, "tail", root, "orders-0", "--follow", "--json"], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.on("exit", (code, signal) => resolve({ code, signal })),
    );
    const lines = () => stdout.split("\n").length - 1;
    const until = async (n: number) => {
      for (let i = 0; i < 1_000 && lines() < n && child.exitCode === null; i++)
        await new Promise((r) => setTimeout(r, 20));
    };
    try {
      await until(1);
      let total = 1;
      // Appends while the tail follows: several records per call, some calls flushed, segments rolling.
      for (let call = 0; call < 60; call++) {
        const count = 1 + (call % 4);
        const records = Array.from({ length: count }, (_, i) => ({
          key: `k${total + i}`,
          value: `v${total + i}`.repeat(20),
        }));
        await log.append(records);
        total += count;
        if (call % 7 === 0) await log.flush();
        if (call % 5 === 0) await new Promise((r) => setTimeout(r, 15));
      }
      await until(total);
      expect(log.segmentCount).toBeGreaterThan(2);
      child.kill("SIGINT");
      const { code, signal } = await exited;
      expect(stderr).toBe("");
      expect({ code, signal }).toEqual({ code: 0, signal: null });
      const got = stdout
        .trimEnd()
        .split("\n")
        .map((l) => JSON.parse(l) as { offset: number; key: string });
      expect(got.map((r) => r.offset)).toEqual(Array.from({ length: total }, (_, i) => i));
      expect(got.map((r) => r.key)).toEqual(Array.from({ length: total }, (_, i) => `k${i}`));
      expect(readdirSync(root).filter((f) => f.endsWith(".tmp"))).toEqual([]);
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
      await dir.close();
    }
  });

  it("beside a writer that compacts, truncates and deletes: each line is a record appended at its offset, then 0 or one line", async () => {
    const seed = testSeed();
    const draw = rng(seed);
    root = mkdtempSync(join(tmpdir(), "pagelog-tail-"));
    const dir = await LogDir.open(root, { checkpointIntervalMs: -1 });
    const log = await dir.log("orders-0", {
      segmentBytes: 600,
      indexIntervalBytes: 64,
      cleanupPolicy: "compact",
      minCleanableDirtyRatio: 0.2,
    });
    // Every value is unique: the offset it was appended at tells each printed line apart.
    const appendedAt = new Map<string, number>();
    let next = 0;
    const append = async (): Promise<void> => {
      const values = Array.from({ length: 1 + draw(4) }, () => `v${next++}`);
      const base = log.endOffset;
      values.forEach((v, i) => appendedAt.set(v, base + i));
      await log.append(values.map((value) => ({ key: `k${draw(6)}`, value })));
    };
    for (let i = 0; i < 10; i++) await append();
    await log.flush();
    const child = spawn(process.execPath, [CLI, "tail", root, "orders-0", "--follow", "--json"], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.on("exit", (code, signal) => resolve({ code, signal })),
    );
    try {
      for (let step = 0; step < 120 && child.exitCode === null; step++) {
        const pick = draw(100);
        const span = log.endOffset - log.startOffset;
        if (pick < 70) await append();
        // Truncations late: until then the tail follows compaction and deletions with no cut.
        else if (pick < 80) await (step < 90 ? log.flush() : log.truncateTo(log.startOffset + draw(span + 1)));
        else if (pick < 85) await log.deleteRecordsBefore(log.startOffset + draw(Math.min(span, 4) + 1));
        else if (pick < 92) await log.compact();
        else await log.flush();
        if (step % 4 === 0) await new Promise((r) => setTimeout(r, 5 + draw(20)));
      }
      await new Promise((r) => setTimeout(r, 300)); // one more poll or two
      if (child.exitCode === null) child.kill("SIGINT");
      const { code, signal } = await exited;
      const context = `seed ${seed}: exit ${code} ${signal}, stderr ${stderr}`;
      expect(signal, context).toBe(null);
      if (code === 0) expect(stderr, context).toBe("");
      else {
        expect(code, context).toBe(1);
        // One line, naming what took the records it had printed.
        expect(stderr.trimEnd().split("\n"), context).toHaveLength(1);
        expect(stderr, context).toMatch(/truncated|out of range/);
      }
      let last = -1;
      for (const text of stdout
        .trimEnd()
        .split("\n")
        .filter((l) => l !== "")) {
        const { offset, value } = JSON.parse(text) as { offset: number; value: string };
        expect(offset, context).toBeGreaterThan(last);
        expect(appendedAt.get(value), `${context}: offset ${offset} printed ${value}`).toBe(offset);
        last = offset;
      }
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
      await dir.close();
    }
  });
});

/** Runs `sh -c script` and resolves with when its first stdout byte came and when it exited. */
function timedShell(
  script: string,
): Promise<{ firstOutputAt: number | undefined; exitedAt: number; code: number | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn("sh", ["-c", script], { stdio: ["ignore", "pipe", "inherit"] });
    let firstOutputAt: number | undefined;
    child.stdout.on("data", () => (firstOutputAt ??= Date.now()));
    // A tail that never notices would run forever: end it, and let the assertions fail.
    const limit = setTimeout(() => child.kill("SIGKILL"), 15_000);
    child.on("error", reject);
    child.on("exit", (code) => {
      clearTimeout(limit);
      resolve({ firstOutputAt, exitedAt: Date.now(), code });
    });
  });
}

// As `tail -f | head -1` ends about a second after head exits, so must pagelog's, although a quiet
// log gives it nothing to write (so no EPIPE). 3 s: GNU tail's one-second check plus a loaded
// 2-core machine; a tail that never notices runs until the 15 s limit.
describe("pagelog tail --follow whose reader went away, on a log nobody appends to", () => {
  const quote = (s: string) => `'${s.replaceAll("'", "'\\''")}'`;
  const tailCommand = (dir: string) => `${quote(process.execPath)} ${CLI} tail ${quote(dir)} orders-0 --follow`;

  it("| head -1: ends within 3 s of head printing the one line", async () => {
    root = mkdtempSync(join(tmpdir(), "pagelog-tail-head-"));
    const dir = await LogDir.open(root);
    await (await dir.log("orders-0")).append([{ key: "k", value: "the only record" }]);
    await dir.close();
    const run = await timedShell(`${tailCommand(root)} | head -1`);
    expect(run.firstOutputAt, "head printed the record").toBeDefined();
    expect(run.exitedAt - run.firstOutputAt!).toBeLessThan(3_000);
  });

  it("| true on an empty log: ends within 3 s though it never writes", async () => {
    root = mkdtempSync(join(tmpdir(), "pagelog-tail-true-"));
    const dir = await LogDir.open(root);
    await dir.log("orders-0");
    await dir.close();
    const started = Date.now();
    const run = await timedShell(`${tailCommand(root)} | true`);
    expect(run.exitedAt - started).toBeLessThan(3_000 + 2_000); // + the CLI's start-up
  });

  it("a parent that closes the child's stdout socket: the tail exits 0 within 3 s", async () => {
    root = mkdtempSync(join(tmpdir(), "pagelog-tail-socket-"));
    const dir = await LogDir.open(root);
    await (await dir.log("orders-0")).append([{ key: "k", value: "one" }]);
    await dir.close();
    const child = spawn(process.execPath, [CLI, "tail", root, "orders-0", "--follow"], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const limit = setTimeout(() => child.kill("SIGKILL"), 15_000);
    const closedAt = await new Promise<number>((resolve) =>
      child.stdout.once("data", () => {
        child.stdout.destroy();
        resolve(Date.now());
      }),
    );
    const { code, at } = await new Promise<{ code: number | null; at: number }>((resolve) =>
      child.on("exit", (c) => resolve({ code: c, at: Date.now() })),
    );
    clearTimeout(limit);
    expect(at - closedAt).toBeLessThan(3_000);
    expect([code, stderr]).toEqual([0, ""]);
  });
});
