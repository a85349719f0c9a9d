/**
 * Real processes, real files, cleanings killed (issue 22, Deliver 4): a child appends keyed
 * records (repeated keys, tombstones), flushes and runs `log.compact()` in a loop on a real
 * directory (fixtures/compaction-kill-child.mjs), and is killed with SIGKILL at random moments,
 * round after round on the same directory. A killed process loses no page cache, so after each
 * kill the log must be a valid compaction of what the children sent: every record present was sent
 * with its offset, key and value; offsets strictly increase; the log ends at or past every
 * acknowledged (and every flushed) offset and not past anything sent; for every key, its latest
 * acknowledged record is there, or a later record of that key; no `.swap` or `.cleaned` is left.
 *
 * Every other kill the parent reopens the directory itself (recovering, an interrupted swap
 * finished), checks it, runs `verify` and reopens it once more (which must change nothing);
 * otherwise the next child recovers on its own and appends on top.
 *
 * Replay the same draws (kill moments still depend on timing):
 *   PAGELOG_SEED=<base seed> npx vitest run test/integration/compaction-sigkill.test.ts (printed on failure)
 * More kills: PAGELOG_KILLS=200.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LogDir } from "../../src/node.js";
import { verdictOf, verifyDir } from "../../src/inspect/verify-dir.js";
import { FsStorage } from "../../src/storage/fs-storage.js";
import { privateBuild } from "../support/private-build.js";
import { testReplayCommand, testSeed } from "../support/seed.js";
import { size } from "../support/budget.js";
import { rng } from "../support/xorshift.js";

const repo = resolve(import.meta.dirname, "../..");
const child = join(repo, "test/integration/fixtures/compaction-kill-child.mjs");
const KILLS = size("compactionKills");
const PARTITION = "kill-0";
const OPTIONS = { cleanupPolicy: "compact", segmentBytes: 1024, indexIntervalBytes: 256 } as const;

let buildDir: string;
let dataDir: string;
let failed = false;

beforeAll(() => {
  buildDir = privateBuild();
  // On tmpfs where there is one: a round's fsyncs on a shared disk would take most of its time.
  dataDir = mkdtempSync(join(existsSync("/dev/shm") ? "/dev/shm" : tmpdir(), "pagelog-compaction-kill-"));
}, 60_000);

afterAll(() => {
  if (dataDir !== undefined && !failed) rmSync(dataDir, { recursive: true, force: true });
});

interface Sent {
  readonly key: string;
  readonly value: string | null;
}

interface Round {
  ready: number | undefined;
  sent: Map<number, Sent>;
  acked: number; // 1 + the highest acknowledged offset, 0 if none
  flushed: number;
  compacting: boolean; // the last line said a cleaning had started and not ended
  cleanings: number;
  errors: string[];
  signal: NodeJS.Signals | null;
  stderr: string;
}

/** Runs one child and kills it `delayMs` after its ready line. */
function runRound(round: number, seed: number, delayMs: number): Promise<Round> {
  return new Promise((done, reject) => {
    const proc = spawn(process.execPath, [child, dataDir, String(round), String(seed), JSON.stringify(OPTIONS)], {
      env: { ...process.env, PAGELOG_MODULE: join(buildDir, "node.js") },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const r: Round = {
      ready: undefined,
      sent: new Map(),
      acked: 0,
      flushed: 0,
      compacting: false,
      cleanings: 0,
      errors: [],
      signal: null,
      stderr: "",
    };
    let pending = "";
    // A kill before the ready line (a child slow to start) lands in its recovery: also wanted.
    let timer: NodeJS.Timeout | undefined = setTimeout(() => proc.kill("SIGKILL"), 4_000);
    proc.stdout.setEncoding("utf8");
    proc.stdout.on("data", (chunk: string) => {
      pending += chunk;
      let nl: number;
      while ((nl = pending.indexOf("\n")) >= 0) {
        const [kind, a, b, c] = pending.slice(0, nl).split(" ");
        const line = pending.slice(0, nl);
        pending = pending.slice(nl + 1);
        if (kind === "ready") {
          r.ready = Number(a);
          clearTimeout(timer);
          timer = setTimeout(() => proc.kill("SIGKILL"), delayMs);
        } else if (kind === "send") r.sent.set(Number(a), { key: b!, value: c === "~" ? null : c! });
        else if (kind === "ack") r.acked = Math.max(r.acked, Number(a) + 1);
        else if (kind === "flushed") r.flushed = Number(a);
        else if (kind === "compacting") r.compacting = true;
        else if (kind === "compacted") ((r.compacting = false), r.cleanings++);
        else r.errors.push(line);
      }
    });
    proc.stderr.setEncoding("utf8");
    proc.stderr.on("data", (chunk: string) => (r.stderr += chunk));
    proc.on("error", reject);
    proc.on("close", (_code, signal) => {
      clearTimeout(timer);
      r.signal = signal;
      done(r);
    });
  });
}

/** What the parent knows across rounds: what may be in the log, what must be. */
interface Knowledge {
  readonly sent: Map<number, Sent>; // offset → what the latest round that sent it sent
  mustEnd: number; // the log may not end below (acknowledged or flushed)
  mayEnd: number; // nor past (sent)
}

/** Reads the log here (recovering after the kill), checks the property, verifies, reopens. */
async function check(k: Knowledge, fail: (m: string) => never): Promise<number> {
  const read = async () => {
    // The child cleans in the background too; the parent's reads must not, or the second open
    // would read what a background cleaning of the first left, not what the kill left.
    const dir = await LogDir.open(dataDir, { log: { ...OPTIONS, backgroundCleaning: false } });
    try {
      const log = await dir.log(PARTITION);
      const records: Array<{ offset: number; key: string | null; value: string | null }> = [];
      for await (const r of log.records())
        records.push({
          offset: r.offset,
          key: r.key === null ? null : new TextDecoder().decode(r.key),
          value: r.value === null ? null : new TextDecoder().decode(r.value),
        });
      return { records, end: log.endOffset };
    } finally {
      await dir.close();
    }
  };
  const { records, end } = await read();
  if (end < k.mustEnd) fail(`the log ends at ${end}, but offset ${k.mustEnd - 1} was acknowledged`);
  if (end > k.mayEnd) fail(`the log ends at ${end}, past everything sent (${k.mayEnd})`);
  let last = -1;
  const latestPresent = new Map<string, number>();
  for (const r of records) {
    if (r.offset <= last) fail(`offset ${r.offset} after ${last}`);
    last = r.offset;
    const s = k.sent.get(r.offset);
    if (s === undefined || s.key !== r.key || s.value !== r.value)
      fail(`offset ${r.offset} holds ${JSON.stringify(r).slice(0, 80)}, sent ${JSON.stringify(s)?.slice(0, 80)}`);
    latestPresent.set(r.key, r.offset);
  }
  // Every key's latest acknowledged record, or a later one of that key (a cleaning may drop it then).
  const latestAcked = new Map<string, number>();
  for (const [offset, s] of k.sent)
    if (offset < k.mustEnd) latestAcked.set(s.key, Math.max(latestAcked.get(s.key) ?? -1, offset));
  for (const [key, offset] of latestAcked)
    if ((latestPresent.get(key) ?? -1) < offset) fail(`key ${key}: its latest acknowledged record ${offset} is gone`);
  const leftovers = readdirSync(join(dataDir, PARTITION)).filter((n) => /\.(swap|cleaned)$/.test(n));
  if (leftovers.length > 0) fail(`left after an open: ${leftovers.join(", ")}`);
  const storage = await FsStorage.open(dataDir);
  const report = await verifyDir(storage, undefined);
  await storage.close();
  if (verdictOf(report) !== "clean") fail(`verify: ${JSON.stringify(report).slice(0, 600)}`);
  const again = await read();
  if (JSON.stringify(again) !== JSON.stringify({ records, end })) fail("a second open reads other records");
  return records.length;
}

describe("SIGKILL during compaction on the real file system", () => {
  it(`the log stays a valid compaction of what was sent through ${KILLS} kills`, async () => {
    const seed = testSeed();
    const replay = testReplayCommand();
    const rand = rng(seed);
    const k: Knowledge = { sent: new Map(), mustEnd: 0, mayEnd: 0 };
    let kills = 0;
    let duringCleaning = 0;
    let cleanings = 0;
    let checks = 0;
    let held = 0;
    const started = Date.now();
    const fail = (message: string): never => {
      failed = true;
      throw new Error(`${message}\n(seed ${seed}, after ${kills} kill(s), directory ${dataDir})\nReplay: ${replay}`);
    };
    for (let round = 0; kills < KILLS; round++) {
      const r = await runRound(round, rand(2 ** 31), 20 + rand(250));
      if (r.errors.length > 0 || r.signal !== "SIGKILL")
        fail(`round ${round}: the child did not die by SIGKILL (${r.signal}):\n${r.errors.join("\n")}\n${r.stderr}`);
      kills++;
      if (r.ready !== undefined) {
        if (r.ready < k.mustEnd) fail(`round ${round} opened at ${r.ready}, below acknowledged ${k.mustEnd}`);
        // Offsets from its start on are this round's: an earlier round's tail past it was cut.
        for (const offset of [...k.sent.keys()]) if (offset >= r.ready) k.sent.delete(offset);
        for (const [offset, s] of r.sent) k.sent.set(offset, s);
        k.mustEnd = Math.max(r.ready, r.acked, r.flushed);
        k.mayEnd = Math.max(r.ready, ...[...r.sent.keys()].map((o) => o + 1));
        if (r.compacting) duringCleaning++;
        cleanings += r.cleanings;
      }
      if (kills % 2 === 0 || kills === KILLS) {
        held = await check(k, fail);
        checks++;
      }
    }
    console.log(
      `compaction sigkill: seed ${seed}, ${kills} kills (${duringCleaning} during a cleaning), ${cleanings} cleanings finished, ${checks} parent checks, ${held} records held of ${k.mustEnd} acknowledged offsets, ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
    expect(cleanings).toBeGreaterThan(0);
  }, 180_000);
});
