/**
 * Real processes, real files: a child appends with FsStorage and is killed with SIGKILL at random
 * moments — while it appends, while it fsyncs, while it recovers from the previous kill — under
 * several flush policies, round after round on the same directory. A killed process loses no
 * page cache, so EVERY acknowledged append must survive, not only the flushed ones, and the log
 * must be a valid prefix of what the child sent: offsets contiguous from 0, each value the one
 * the child wrote at that offset, nothing past what it sent.
 *
 * Every other kill, the parent reopens the directory itself (recovery in this process), checks
 * every record and closes it cleanly; otherwise the next child recovers from the kill on its own
 * and appends on top, so recovery followed by appends is exercised too.
 *
 * Replay the same policies, delays and values (the kill moments still depend on timing):
 *   PAGELOG_SEED=<base seed> npx vitest run test/integration/sigkill.test.ts (a failure prints it)
 * More kills: PAGELOG_KILLS=500.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testReplayCommand, testSeed } from "../support/seed.js";
import { size } from "../support/budget.js";
import { privateBuild } from "../support/private-build.js";
import { LogDir } from "../../src/index.js";
import type { LogOptions } from "../../src/index.js";

const repo = resolve(import.meta.dirname, "../..");
const child = join(repo, "test/integration/fixtures/sigkill-child.mjs");
const KILLS = size("kills");
const PARTITION = "kill-0";

/** Small segments and a dense index, so that rounds roll segments and write index entries. */
const BASE: LogOptions = { segmentBytes: 16 * 1024, indexIntervalBytes: 512 };
const POLICIES: ReadonlyArray<{ name: string; options: LogOptions }> = [
  { name: "flushMessages -1 (page cache only)", options: { ...BASE, flushMessages: -1 } },
  { name: "flushMessages 1", options: { ...BASE, flushMessages: 1 } },
  { name: "flushMessages 5", options: { ...BASE, flushMessages: 5 } },
  { name: "flushMs 10", options: { ...BASE, flushMs: 10 } },
];

/** The value the child writes at `offset` in round `r`: keep in sync with fixtures/sigkill-child.mjs. */
function valueFor(r: number, offset: number): string {
  const h = Math.imul(r + 1, 0x9e3779b1) ^ Math.imul(offset + 1, 0x85ebca6b);
  const pad = ((h >>> 7) % 61) + ((h >>> 3) % 50 === 0 ? 3000 : 0);
  return `r${r}o${offset}-${"x".repeat(pad)}`;
}

function mulberry32(seed: number): (n: number) => number {
  let s = seed >>> 0;
  return (n) => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 2 ** 32) * n);
  };
}

let buildDir: string;
let dataDir: string;
let failed = false;

beforeAll(() => {
  // The run's private build of the package (test/support/private-build.ts), not dist/: `npm run
  // build` empties dist/ first, and the packing suites may rebuild it at the same time.
  buildDir = privateBuild();
  dataDir = mkdtempSync(join(tmpdir(), "pagelog-sigkill-"));
}, 60_000);

afterAll(() => {
  if (dataDir !== undefined && !failed) rmSync(dataDir, { recursive: true, force: true });
});

interface RoundResult {
  ready: { end: number; start: number } | undefined;
  acked: Array<{ offset: number; value: string }>;
  maxSent: number; // highest offset the child sent, -1 if none
  signal: NodeJS.Signals | null;
  code: number | null;
  stderr: string;
  errors: string[];
}

/** Runs one child round and kills it `delayMs` after its ready line (or after spawn if `early`). */
function runRound(
  round: number,
  seed: number,
  policy: LogOptions,
  inFlight: number,
  delayMs: number,
  early: boolean,
): Promise<RoundResult> {
  return new Promise((resolvePromise, reject) => {
    const proc = spawn(
      process.execPath,
      [child, dataDir, String(round), String(seed), JSON.stringify(policy), String(inFlight)],
      {
        env: { ...process.env, PAGELOG_MODULE: join(buildDir, "node.js") },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    const result: RoundResult = {
      ready: undefined,
      acked: [],
      maxSent: -1,
      signal: null,
      code: null,
      stderr: "",
      errors: [],
    };
    let pending = "";
    let timer: NodeJS.Timeout | undefined;
    const kill = () => proc.kill("SIGKILL");
    if (early) timer = setTimeout(kill, delayMs);
    proc.stdout.setEncoding("utf8");
    proc.stdout.on("data", (chunk: string) => {
      pending += chunk;
      let nl: number;
      while ((nl = pending.indexOf("\n")) >= 0) {
        const line = pending.slice(0, nl);
        pending = pending.slice(nl + 1);
        const [kind, a, b] = line.split(" ", 3);
        if (kind === "ready") {
          result.ready = { end: Number(a), start: Number(b) };
          if (!early) timer = setTimeout(kill, delayMs);
        } else if (kind === "send") result.maxSent = Math.max(result.maxSent, Number(a) + Number(b) - 1);
        else if (kind === "ack") result.acked.push({ offset: Number(a), value: line.slice(line.indexOf(" ", 4) + 1) });
        else result.errors.push(line);
      }
    });
    proc.stderr.setEncoding("utf8");
    proc.stderr.on("data", (chunk: string) => (result.stderr += chunk));
    proc.on("error", reject);
    proc.on("close", (code, signal) => {
      clearTimeout(timer);
      result.code = code;
      result.signal = signal;
      resolvePromise(result);
    });
  });
}

describe("SIGKILL on the real file system", () => {
  it(
    `every acknowledged append survives ${KILLS} kills, and the log stays a valid prefix`,
    async () => {
      const SEED = testSeed();
      const REPLAY = testReplayCommand();
      const rand = mulberry32(SEED);
      /** Rounds that opened the log, with the offset they started appending at. */
      const writers: Array<{ round: number; start: number }> = [];
      let mustHave = 0; // 1 + the highest acknowledged offset: the log may never end below it
      let mayHave = 0; // 1 + the highest offset ever sent: the log may never end past it
      let kills = 0;
      let earlyKills = 0;
      let acks = 0;
      let verifications = 0;
      let records = 0;
      const started = Date.now();
      const where = () => `seed ${SEED}, after ${kills} kill(s), directory ${dataDir}\nReplay: ${REPLAY}`;
      const fail = (message: string): never => {
        failed = true;
        throw new Error(`${message}\n(${where()})`);
      };
      const checkEnd = (end: number, who: string) => {
        if (end < mustHave)
          fail(
            `${who}: the log ends at ${end}, but offset ${mustHave - 1} was acknowledged: an acknowledged append was lost`,
          );
        if (end > mayHave)
          fail(
            `${who}: the log ends at ${end}, past everything ever sent (${mayHave}): records that were never appended`,
          );
      };

      /** Opens the directory here (recovering after the kill), checks every record, closes cleanly. */
      const verify = async () => {
        const dir = await LogDir.open(dataDir);
        try {
          const log = await dir.log(PARTITION);
          checkEnd(log.endOffset, "parent reopen");
          if (log.startOffset !== 0) fail(`parent reopen: start offset ${log.startOffset}, expected 0`);
          let expected = 0;
          let w = 0;
          for await (const r of log.records({ from: 0 })) {
            if (r.offset !== expected)
              fail(`parent reopen: offset ${r.offset} where ${expected} was expected (a hole or a duplicate)`);
            while (w + 1 < writers.length && writers[w + 1]!.start <= r.offset) w++;
            const writer = writers[w];
            const want = writer === undefined ? undefined : valueFor(writer.round, r.offset);
            const got = r.value === null ? null : new TextDecoder().decode(r.value);
            if (got !== want)
              fail(
                `parent reopen: offset ${r.offset} holds ${JSON.stringify(got?.slice(0, 40))}, but round ${writer?.round} sent ${JSON.stringify(want?.slice(0, 40))}`,
              );
            expected++;
          }
          if (expected !== log.endOffset)
            fail(`parent reopen: read ${expected} records, but the log ends at ${log.endOffset}`);
          records = expected;
          verifications++;
        } finally {
          await dir.close();
        }
      };

      for (let round = 0; kills < KILLS; round++) {
        const policy = POLICIES[rand(POLICIES.length)]!;
        const inFlight = [1, 1, 4, 16][rand(4)]!;
        // About one kill in six lands early: during start-up or while the child recovers from the last kill.
        const early = rand(6) === 0;
        const delay = early ? 20 + rand(80) : 5 + rand(120);
        const result = await runRound(round, rand(2 ** 31), policy.options, inFlight, delay, early);
        if (result.errors.length > 0 || result.signal !== "SIGKILL") {
          fail(
            `round ${round} (${policy.name}): the child did not die by SIGKILL (code ${result.code}, signal ${result.signal}):\n${result.errors.join("\n")}\n${result.stderr}`,
          );
        }
        kills++;
        if (result.ready === undefined) earlyKills++;
        else {
          checkEnd(result.ready.end, `round ${round} (${policy.name}) reopened after a kill`);
          writers.push({ round, start: result.ready.end });
          // Offsets from this round's start on are this round's: earlier rounds' tails past it were cut.
          mayHave = Math.max(result.ready.end, result.maxSent + 1);
          mustHave = result.ready.end;
          for (const ack of result.acked) {
            if (ack.value !== valueFor(round, ack.offset))
              fail(`round ${round}: ack for offset ${ack.offset} carried ${ack.value.slice(0, 40)}`);
            mustHave = Math.max(mustHave, ack.offset + 1);
          }
          acks += result.acked.length;
        }
        if (kills % 2 === 0 || kills === KILLS) await verify();
      }
      const seconds = (Date.now() - started) / 1000;
      console.log(
        `sigkill: seed ${SEED}, ${kills} kills (${earlyKills} before the child was ready), ${acks} acknowledged appends, ${verifications} parent verifications, ${records} records at the end, ${seconds.toFixed(1)} s`,
      );
      expect(kills).toBeGreaterThanOrEqual(KILLS);
      expect(acks).toBeGreaterThan(0);
    },
    Math.max(120_000, KILLS * 2_000),
  );
});
