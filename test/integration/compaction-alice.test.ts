/**
 * ALICE-style crash states of a cleaning on real files (issue 22, Deliver 4): a `log.compact()` on
 * FsStorage is recorded operation by operation (test/support/alice-model.ts), and for crash points
 * all along it (before every operation, the open and the close around it included) and for the
 * fates of what was not durable there (docs/fault-model.md's rules: unsynced writes whole, lost
 * or torn, sizes old or new, a prefix of each directory's unsynced changes, files and directories
 * independent of one another), the resulting directory is written with node:fs and opened with
 * FsStorage + LogDir. Each must be a valid compaction of what was appended: every record present
 * was appended with its offset, key, value and timestamp, and the log held it before the cleaning;
 * offsets strictly increase; every key's latest record is present; the log ends where it ended;
 * `verify` finds nothing; a second open changes no file and reads the same records.
 *
 * The same exploration with one fsync dropped (the `.cleaned` files', so a swap is renamed into
 * place before its bytes are durable) must find a state that breaks the property.
 *
 * Seeded: a failure prints the base seed and the replay command; the state's directory is kept.
 * More states: PAGELOG_ALICE_STATES=2000 (default 40 per run).
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LogDir } from "../../src/node.js";
import { verdictOf, verifyDir } from "../../src/inspect/verify-dir.js";
import { FsStorage } from "../../src/storage/fs-storage.js";
import {
  crashState,
  OpRecorder,
  readTree,
  writeTree,
  type Fates,
  type FsOp,
  type Tree,
} from "../support/alice-model.js";
import { plain, type PlainRecord } from "../support/plain-record.js";
import { testSeed } from "../support/seed.js";
import { size } from "../support/budget.js";
import { rng } from "../support/xorshift.js";

const NAME = "clean-0";
/**
 * Written with small segments, cleaned with larger ones: the cleaning groups several into one.
 * The recording is of one explicit compact(): no cleaning in the background before it, or in the
 * opens that check each crash state (the engine and the SIGKILL test cover background cleaning).
 */
const WRITTEN = {
  cleanupPolicy: "compact",
  segmentBytes: 220,
  indexIntervalBytes: 64,
  backgroundCleaning: false,
} as const;
const OPTIONS = { ...WRITTEN, segmentBytes: 800 } as const;
const STATES = size("aliceStates");

let base: string;
let failed = false;

beforeAll(() => {
  // On tmpfs where there is one: each state is opened twice and every open fsyncs, which on a
  // shared disk costs far more than the states themselves (the files are as real either way).
  base = mkdtempSync(join(existsSync("/dev/shm") ? "/dev/shm" : tmpdir(), "pagelog-alice-"));
});

afterAll(() => {
  if (!failed) rmSync(base, { recursive: true, force: true });
});

interface Appended {
  readonly key: string;
  readonly value: string | null;
  readonly timestamp: number;
}

/** A log of repeated keys and tombstones, cleaned once halfway, flushed and closed: what the recorded cleaning starts from. */
async function prepare(dir: string, seed: number): Promise<Map<number, Appended>> {
  const rand = rng(seed);
  const appended = new Map<number, Appended>();
  const logDir = await LogDir.open(dir);
  const log = await logDir.log(NAME, WRITTEN);
  for (let i = 0; i < 60; i++) {
    if (i === 30) await log.flush().then(() => log.compact());
    const key = `k${rand(8)}`;
    const value = rand(9) === 0 ? null : `v${i}-${"x".repeat(rand(40))}`;
    const timestamp = Date.now();
    const { baseOffset } = await log.append([{ key, value, timestamp }]);
    appended.set(baseOffset, { key, value, timestamp });
  }
  await logDir.close();
  return appended;
}

/** The recorded cleaning: the open, the records it saw, `compact()`, the close. */
async function record(dir: string, dropSync?: (path: string) => boolean) {
  const initial = readTree(dir);
  const recorder = new OpRecorder(await FsStorage.open(dir), initial, dropSync);
  const logDir = await LogDir.open(recorder, { log: OPTIONS });
  const log = await logDir.log(NAME);
  const before: PlainRecord[] = [];
  for await (const r of log.records()) before.push(plain(r));
  const end = log.endOffset;
  const result = await log.compact();
  await logDir.close();
  await recorder.close();
  return { initial, ops: recorder.ops, before, end, result };
}

type Recorded = Awaited<ReturnType<typeof record>>;

function sameTree(a: Tree, b: Tree): boolean {
  const flat = (t: Tree): string[] =>
    [...t.dirs].flatMap(([dir, entries]) =>
      [...entries].map(([name, inode]) => `${dir}/${name}=${Buffer.from(t.bytes.get(inode)!).toString("hex")}`),
    );
  const [x, y] = [flat(a).sort(), flat(b).sort()];
  return x.length === y.length && x.every((line, i) => line === y[i]);
}

async function readAll(dir: string): Promise<{ records: PlainRecord[]; end: number }> {
  const logDir = await LogDir.open(dir, { log: OPTIONS });
  try {
    const log = await logDir.log(NAME);
    const records: PlainRecord[] = [];
    for await (const r of log.records()) records.push(plain(r));
    return { records, end: log.endOffset };
  } finally {
    await logDir.close();
  }
}

/** The property on one materialised state; returns what is wrong, or undefined. */
async function check(dir: string, appended: Map<number, Appended>, run: Recorded): Promise<string | undefined> {
  let first;
  try {
    first = await readAll(dir);
  } catch (err) {
    return `the open failed: ${String(err)}`;
  }
  const { records, end } = first;
  if (end !== run.end) return `the log ends at ${end}, it ended at ${run.end}`;
  const held = new Map(run.before.map((r) => [r.offset, r]));
  let last = -1;
  for (const r of records) {
    if (r.offset <= last) return `offset ${r.offset} after ${last}`;
    last = r.offset;
    const a = appended.get(r.offset);
    if (a === undefined || a.key !== r.key || a.value !== r.value || a.timestamp !== r.timestamp)
      return `offset ${r.offset} holds ${JSON.stringify(r)}, appended ${JSON.stringify(a)}`;
    if (!held.has(r.offset)) return `offset ${r.offset} came back: the log did not hold it before the cleaning`;
  }
  const latest = new Map<string, number>();
  for (const [offset, a] of appended) latest.set(a.key, Math.max(latest.get(a.key) ?? -1, offset));
  const present = new Set(records.map((r) => r.offset));
  for (const [key, offset] of latest)
    if (!present.has(offset)) return `key ${key}: its latest record ${offset} is gone`;
  const storage = await FsStorage.open(dir);
  const report = await verifyDir(storage, undefined);
  await storage.close();
  if (verdictOf(report) !== "clean") return `verify: ${JSON.stringify(report).slice(0, 600)}`;
  const settled = readTree(dir);
  const second = await readAll(dir);
  if (JSON.stringify(second.records) !== JSON.stringify(records)) return "a second open reads other records";
  if (!sameTree(settled, readTree(dir))) return "a second open changed files";
  return undefined;
}

/**
 * Materialises and checks up to `budget` distinct crash states of `run` (every crash point with
 * every fate "everything" and "nothing" first, then random fates); returns the first failure.
 */
async function explore(
  run: Recorded,
  appended: Map<number, Appended>,
  budget: number,
  rand: (n: number) => number,
): Promise<{ explored: number; failure?: string }> {
  const seen = new Set<string>();
  const points = Array.from({ length: run.ops.length + 1 }, (_, k) => k);
  const draws: Array<{ count: number; fates: Fates; label: string }> = [];
  for (const fates of ["everything", "nothing"] as const)
    for (const count of points) draws.push({ count, fates, label: fates });
  let explored = 0;
  for (let i = 0; explored < budget && i < budget * 20; i++) {
    const random = i >= draws.length;
    const draw = random
      ? { count: rand(points.length), fates: { rand }, label: "random" }
      : draws[(i * 7919) % draws.length]!;
    const tree = crashState(run.initial, run.ops, draw.count, draw.fates);
    const key = JSON.stringify(
      [...tree.dirs].map(([d, e]) => [
        d,
        [...e].map(([n, ino]) => [n, Buffer.from(tree.bytes.get(ino)!).toString("base64")]),
      ]),
    );
    if (seen.has(key)) continue;
    seen.add(key);
    const dir = join(base, `state-${explored++}`);
    writeTree(dir, tree);
    const wrong = await check(dir, appended, run);
    if (wrong !== undefined) {
      const op = run.ops[draw.count - 1];
      return {
        explored,
        failure: `crash after ${draw.count} of ${run.ops.length} operations (the last ${describeOp(op)}), fates ${draw.label}: ${wrong} (directory ${dir})`,
      };
    }
    rmSync(dir, { recursive: true, force: true });
  }
  return { explored };
}

function describeOp(op: FsOp | undefined): string {
  if (op === undefined) return "none";
  if (op.kind === "write") return `write of ${op.bytes.length} bytes at ${op.position} (inode ${op.inode})`;
  return JSON.stringify(op);
}

describe("ALICE-style crash states of a cleaning on real files", () => {
  it(`every crash state of a recorded compact() is a valid compaction of what was appended (${STATES} states)`, async () => {
    const seed = testSeed();
    const dir = join(base, "log");
    const appended = await prepare(dir, seed);
    const run = await record(dir);
    // The recording is faithful: with everything kept, the model ends where the real directory did.
    const modelled = crashState(run.initial, run.ops, run.ops.length, "everything");
    expect(sameTree(modelled, readTree(dir))).toBe(true);
    expect(run.result.segmentsCleaned).toBeGreaterThan(run.result.segmentsAfter); // groups were merged
    expect(run.ops.filter((op) => op.kind === "rename" && op.to.endsWith(".log.swap")).length).toBeGreaterThan(1);
    const started = Date.now();
    const { explored, failure } = await explore(run, appended, STATES, rng(seed ^ 0x5bd1e995));
    if (failure !== undefined) failed = true;
    expect(failure).toBeUndefined();
    expect(explored).toBe(STATES);
    console.log(
      `alice: seed ${seed}, ${run.ops.length} operations recorded, ${explored} distinct crash states checked in ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
  }, 240_000);

  it("catches a planted bug: the .cleaned files' fsync dropped before the rename to .swap", async () => {
    const seed = testSeed();
    const dir = join(base, "log-broken");
    const appended = await prepare(dir, seed);
    const run = await record(dir, (path) => path.endsWith(".cleaned"));
    const { failure } = await explore(run, appended, STATES, rng(seed ^ 0x5bd1e995));
    expect(failure, "the exploration found no state the missing fsync breaks").toBeDefined();
    console.log(`alice (planted bug): ${failure}`);
  }, 240_000);
});
