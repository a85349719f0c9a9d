/**
 * Two real processes on one directory: a writer child (the built package, FsStorage) appends and
 * flushes in a loop while this process follows it with a read-only LogDir (`records({ follow })`,
 * polling); the writer is SIGKILLed mid-run, a new writer recovers and appends on top, and is
 * killed again. The reader must have seen every flushed record, in order, with no duplicate and
 * no record that was not appended (each value is a function of its offset, and every record
 * seen is still in the log after the last recovery). A read-only open is never PAGELOG_LOCKED by
 * the writer, and a reader's whole session leaves every byte of the directory as it was.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ErrorCode } from "../../src/errors.js";
import { FsStorage, LogDir } from "../../src/node.js";
import { privateBuild } from "../support/private-build.js";
import { RecordingStorage } from "../support/recording-storage.js";
import { snapshotStorage } from "../support/storage-snapshot.js";
import { testSeed } from "../support/seed.js";

const repo = resolve(import.meta.dirname, "../..");
const child = join(repo, "test/integration/fixtures/readonly-writer-child.mjs");
const PARTITION = "ro-0";
const decoder = new TextDecoder();

/** Keep in sync with fixtures/readonly-writer-child.mjs. */
const valueFor = (offset: number): string =>
  `v${offset}-${"x".repeat((Math.imul(offset + 1, 0x9e3779b1) >>> 5) % 200)}`;

let buildDir: string;
let dataDir: string;

beforeAll(() => {
  buildDir = privateBuild();
  dataDir = mkdtempSync(join(tmpdir(), "pagelog-readonly-"));
}, 60_000);

afterAll(() => {
  if (dataDir !== undefined) rmSync(dataDir, { recursive: true, force: true });
});

interface Writer {
  /** Highest `flushed` end seen, and highest `send` end (nothing at or past it was appended). */
  flushed: number;
  sent: number;
  ready: Promise<number>;
  done: Promise<{ signal: NodeJS.Signals | null; errors: string[]; stderr: string }>;
  kill(): void;
}

function startWriter(seed: number): Writer {
  const proc = spawn(process.execPath, [child, dataDir, String(seed)], {
    env: { ...process.env, PAGELOG_MODULE: join(buildDir, "node.js") },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const errors: string[] = [];
  let stderr = "";
  let pending = "";
  let onReady: (end: number) => void = () => undefined;
  const w: Writer = {
    flushed: 0,
    sent: 0,
    ready: new Promise((r) => (onReady = r)),
    done: new Promise((r, reject) => {
      proc.on("error", reject);
      proc.on("close", (_code, signal) => r({ signal, errors, stderr }));
    }),
    kill: () => proc.kill("SIGKILL"),
  };
  proc.stdout.setEncoding("utf8");
  proc.stdout.on("data", (chunk: string) => {
    pending += chunk;
    let nl: number;
    while ((nl = pending.indexOf("\n")) >= 0) {
      const [kind, a] = pending.slice(0, nl).split(" ", 2);
      if (kind === "ready") onReady(Number(a));
      else if (kind === "send") w.sent = Math.max(w.sent, Number(a));
      else if (kind === "flushed") w.flushed = Math.max(w.flushed, Number(a));
      else errors.push(pending.slice(0, nl));
      pending = pending.slice(nl + 1);
    }
  });
  proc.stderr.setEncoding("utf8");
  proc.stderr.on("data", (chunk: string) => (stderr += chunk));
  return w;
}

async function until(what: string, ready: () => boolean, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!ready()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe("a second process reads", () => {
  it("a read-only follower sees every flushed record across SIGKILLs and a recovery, nothing else", async () => {
    const seed = testSeed();
    let writer = startWriter(seed);
    expect(await writer.ready).toBe(0);
    // The writer holds the lock: a writable open is refused, a read-only one is not.
    await expect(LogDir.open(dataDir)).rejects.toMatchObject({ code: ErrorCode.LOCKED });
    const dir = await LogDir.open(dataDir, { readOnly: true, pollMs: 5 });
    const log = await (async () => {
      for (;;) {
        try {
          return await dir.log(PARTITION);
        } catch (err) {
          if ((err as { code?: string }).code !== ErrorCode.NOT_FOUND) throw err;
          await new Promise((r) => setTimeout(r, 5));
        }
      }
    })();
    const seen: Array<{ offset: number; value: string }> = [];
    const ac = new AbortController();
    const following = (async () => {
      for await (const r of log.records({ follow: true, signal: ac.signal }))
        seen.push({ offset: r.offset, value: decoder.decode(r.value!) });
    })().catch((err: unknown) => err);
    const flushedEach: number[] = [];
    for (let round = 0; round < 3; round++) {
      if (round > 0) {
        writer = startWriter(seed + round);
        const end = await writer.ready; // recovered from the kill
        expect(end).toBeGreaterThanOrEqual(flushedEach[round - 1]!);
      }
      const target = (flushedEach[round - 1] ?? 0) + 400;
      await until(`writer ${round} to flush ${target}`, () => writer.flushed >= target);
      writer.kill();
      const { signal, errors, stderr } = await writer.done;
      expect({ signal, errors, stderr }).toEqual({ signal: "SIGKILL", errors: [], stderr: "" });
      flushedEach.push(writer.flushed);
      // Every flushed record reaches the follower (polling), even with the writer dead.
      await until(`the follower to reach ${writer.flushed}`, () => seen.length >= writer.flushed);
      expect(seen.length).toBeLessThanOrEqual(writer.sent);
    }
    ac.abort();
    expect((await following) as Error).toMatchObject({ name: "AbortError" });
    await dir.close();
    // In order, no gap, no duplicate, and each the value written at its offset.
    seen.forEach((r, i) => expect(r).toEqual({ offset: i, value: valueFor(i) }));
    // Nothing that was not appended: every record seen is in the log a recovery leaves.
    const after = await LogDir.open(dataDir);
    const recovered = await after.log(PARTITION);
    expect(recovered.endOffset).toBeGreaterThanOrEqual(seen.length);
    for await (const r of recovered.records({ to: seen.length }))
      expect(decoder.decode(r.value!)).toBe(seen[r.offset]!.value);
    await after.close();
  }, 120_000);

  it("a reader's whole session changes no byte of the directory and makes only read calls", async () => {
    const writer = startWriter(testSeed() + 1);
    await writer.ready;
    await until("a flush", () => writer.flushed >= 100);
    writer.kill();
    await writer.done;
    const fs = await FsStorage.open(dataDir, { create: false });
    const before = await snapshotStorage(fs);
    const mount = new RecordingStorage(fs);
    const dir = await LogDir.open(mount, { readOnly: true });
    const log = await dir.log(PARTITION);
    let n = 0;
    for await (const r of log.records()) {
      expect(decoder.decode(r.value!)).toBe(valueFor(r.offset));
      n++;
    }
    expect(n).toBeGreaterThanOrEqual(writer.flushed);
    await log.refresh();
    await dir.close();
    expect(mount.writes).toEqual([]);
    expect(await snapshotStorage(fs)).toEqual(before);
    await fs.close();
  }, 60_000);
});
