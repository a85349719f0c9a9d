/**
 * A crash between the clean point's write and a group's swap, for random logs (issue 22, Deliver
 * 4): the process dies at the k-th `.cleaned` file a cleaning creates (the clean point is then
 * already past that group, which stays uncleaned), the machine reboots, more records come, the
 * clock passes `deleteRetentionMs` and the log is cleaned twice more. The log must stay a valid
 * compaction: every record present was appended at its offset, and for every key either its
 * latest record is present, or it was a tombstone and no older value of the key is left.
 */
import { describe, expect, it } from "vitest";
import { LogDir as Dir } from "../../src/node.js";
import { keepEverything, SimStorage } from "../../src/storage/sim-storage.js";
import { HookedStorage } from "../../src/testing/hooked-storage.js";
import { replayCommand, testSeed } from "../support/seed.js";
import { rng } from "../support/xorshift.js";

const NAME = "state-0";
const RUNS = 40;

interface Appended {
  readonly key: string;
  readonly value: string | null;
}

function testClock(start: number): { now(): number; t: number } {
  return {
    t: start,
    now() {
      return this.t;
    },
  };
}

/** Undefined if `found` is a valid compaction of `appended`; else what is wrong. */
function invalid(found: ReadonlyArray<{ offset: number; key: string; value: string | null }>, appended: Appended[]) {
  let last = -1;
  for (const r of found) {
    if (r.offset <= last) return `offset ${r.offset} after ${last}`;
    last = r.offset;
    const want = appended[r.offset];
    if (want === undefined || want.key !== r.key || want.value !== r.value)
      return `offset ${r.offset} is no record appended`;
  }
  const latest = new Map<string, number>();
  appended.forEach((a, o) => latest.set(a.key, o));
  for (const [key, o] of latest) {
    const present = found.filter((r) => r.key === key);
    if (present.some((r) => r.offset === o)) continue;
    if (appended[o]!.value !== null) return `key ${key}: its latest record (offset ${o}) is missing`;
    if (present.length > 0)
      return `key ${key}: its tombstone at ${o} went but offset ${present.at(-1)!.offset} is back`;
  }
  return undefined;
}

async function oneRun(seed: number): Promise<string | undefined> {
  const rand = rng(seed);
  const clock = testClock(10_000);
  const options = {
    cleanupPolicy: "compact",
    segmentBytes: 200 + rand(400),
    indexIntervalBytes: 64,
    deleteRetentionMs: 1_000,
    backgroundCleaning: rand(3) === 0,
    clock,
  } as const;
  const keys = 2 + rand(6);
  const appended: Appended[] = [];
  const sim = new SimStorage({ seed });
  let dieAt = -1; // the number of .cleaned creations to let through, once armed
  const dies = new HookedStorage(sim, (op, run) => {
    if (dieAt >= 0 && op.kind === "open" && op.create === true && op.path.endsWith(".cleaned") && dieAt-- === 0)
      return Promise.reject(new Error("killed"));
    return run();
  });
  // After the reboot, half the runs write other keys only: then nothing later supersedes an old
  // value left in the uncleaned group, and only the tombstone rule keeps its key deleted.
  let prefix = "k";
  const append = async (log: Awaited<ReturnType<Dir["log"]>>, n: number): Promise<void> => {
    for (let i = 0; i < n; i++) {
      const a = { key: `${prefix}${rand(keys)}`, value: rand(3) === 0 ? null : `v${appended.length}` };
      await log.append([{ ...a, timestamp: clock.t }]);
      appended.push(a);
      clock.t += 1;
    }
  };
  const first = await Dir.open(dies, { log: options });
  const log = await first.log(NAME);
  // The first segments hold values and tombstones of a few keys; unique keys fill the rest, so
  // nothing after the first group supersedes them.
  prefix = "g";
  await append(log, 3 + rand(10));
  for (let i = 0, n = 20 + rand(40); i < n; i++) {
    const a = { key: `f${i}`, value: `v${appended.length}` };
    await log.append([{ ...a, timestamp: clock.t++ }]);
    appended.push(a);
  }
  await log.flush();
  dieAt = rand(4);
  await log.compact().catch(() => undefined); // killed, or finished before its k-th group
  const rebooted = sim.crash(keepEverything);
  prefix = rand(2) === 0 ? "n" : "g";

  clock.t += 1_000_000;
  const dir = await Dir.open(rebooted, { log: options });
  const again = await dir.log(NAME);
  await append(again, 10 + rand(40));
  await again.flush();
  await again.compact();
  clock.t += 1_000_000;
  await append(again, 5 + rand(20));
  await again.flush();
  await again.compact();
  const found = [];
  for await (const r of again.records())
    found.push({
      offset: r.offset,
      key: new TextDecoder().decode(r.key!),
      value: r.value === null ? null : new TextDecoder().decode(r.value),
    });
  await dir.close();
  return invalid(found, appended);
}

describe("a crash between the clean point's write and a group's swap", () => {
  it(`leaves a log whose later cleanings stay valid compactions (${RUNS} random logs)`, async () => {
    const base = testSeed();
    for (let i = 0; i < RUNS; i++) {
      const seed = (base + i * 0x9e3779b1) >>> 0;
      const wrong = await oneRun(seed);
      expect(
        wrong,
        `run seed ${seed}; replay: ${replayCommand("test/property/compaction-clean-point-crash.test.ts")}`,
      ).toBeUndefined();
    }
  }, 120_000);
});
