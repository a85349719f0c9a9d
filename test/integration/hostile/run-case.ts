/**
 * Runs one hostile-files case: the pristine directory, prepared for the variant, mutated, put on
 * a fresh SimStorage (every byte durable); then LogDir.open, log(), records(), a read and an
 * offsetForTimestamp for every record, one append, close. Returns what broke the rules, as text.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ErrorCode, FsStorage, LogDir, PagelogError } from "../../../src/node.js";
import type { Log, Storage } from "../../../src/node.js";
import { verifyDir } from "../../../src/inspect/verify-dir.js";
import type { Case, Expect, Pristine, Variant } from "./cases.js";
import {
  cloneTree,
  guardReads,
  hashTree,
  LOG_OPTIONS,
  MARKER,
  type OverRead,
  PARTITION,
  type Plain,
  plain,
  readTree,
  RECOVERY_CHECKPOINT,
  simOf,
  START_CHECKPOINT,
  type Tree,
  treeDiff,
} from "./tree.js";

/** Storage operations a case may take before it counts as a hang (SimStorage then cuts the power). */
export const OP_BUDGET = 200_000;
const DOCUMENTED = new Set<string>(Object.values(ErrorCode));

export interface CaseResult {
  /** What happened, for the tally: "opened: every record", "LogDir.open: PAGELOG_IO", … */
  outcome: string;
  violations: string[];
}

export function prepare(pristine: Pristine, c: Case, variant: Variant): Tree {
  const tree = cloneTree(pristine.tree);
  if (variant !== "clean") tree.delete(MARKER);
  if (variant === "unclean, no checkpoint") tree.delete(RECOVERY_CHECKPOINT);
  if (variant === "unclean, recovery point mid-log") {
    const text = new TextDecoder().decode(tree.get(RECOVERY_CHECKPOINT) as Uint8Array);
    const mid = text.replace(/^hostile 0 \d+$/m, `hostile 0 ${pristine.midRecoveryPoint}`);
    if (mid === text) throw new Error(`no hostile-0 entry in ${JSON.stringify(text)}`);
    tree.set(RECOVERY_CHECKPOINT, new TextEncoder().encode(mid));
  }
  c.mutate(tree);
  return tree;
}

const without = (tree: Tree, ...paths: string[]) => {
  const t = new Map(tree);
  for (const path of paths) t.delete(path);
  return t;
};
const withoutMarker = (tree: Tree) => without(tree, MARKER);
/** Every `.log` and every other file's name (index contents blanked: a first use may rebuild one). */
const onlyLogsAndNames = (tree: Tree): Tree =>
  new Map([...tree].map(([path, v]) => [path, v !== "dir" && /\.(time)?index$/.test(path) ? new Uint8Array(0) : v]));

/**
 * `fsDir`: run on real files instead (FsStorage rooted at that empty directory), to check that
 * SimStorage's answers are the real ones; no operation budget there (the test's timeout bounds it).
 */
export async function runCase(
  pristine: Pristine,
  originals: readonly Plain[],
  c: Case,
  variant: Variant,
  fsDir?: string,
): Promise<CaseResult> {
  const tree = prepare(pristine, c, variant);
  let backing: Storage;
  if (fsDir === undefined) {
    const simStorage = await simOf(tree);
    simStorage.scheduleCrash({ afterOps: OP_BUDGET });
    backing = simStorage;
  } else {
    writeTreeToDisk(tree, fsDir);
    backing = await FsStorage.open(fsDir);
  }
  try {
    return await runOn(backing, tree, originals, c, variant, pristine.midRecoveryPoint);
  } finally {
    if (fsDir !== undefined) await backing.close();
  }
}

function writeTreeToDisk(tree: Tree, dir: string): void {
  const paths = [...tree.keys()].sort((a, b) => a.split("/").length - b.split("/").length || (a < b ? -1 : 1));
  for (const path of paths) {
    const entry = tree.get(path)!;
    if (entry === "dir") mkdirSync(join(dir, path), { recursive: true });
    else writeFileSync(join(dir, path), entry);
  }
}

async function runOn(
  backing: Storage,
  tree: Tree,
  originals: readonly Plain[],
  c: Case,
  variant: Variant,
  midRecoveryPoint: number,
): Promise<CaseResult> {
  const overReads: OverRead[] = [];
  const storage: Storage = guardReads(backing, overReads);
  const violations: string[] = [];
  /** The first error of the open or a read: what the library refused. */
  let refusal: PagelogError | undefined;
  // What `pagelog verify` says of the same bytes, before anything opens them (it only reads).
  const verdict = variant === "unclean, no checkpoint" ? undefined : await verifyVerdict(tree, violations);

  /** Any error must be a PagelogError with a documented code; a power cut here means the case ran out of operations. */
  const judge = (err: unknown, where: string): PagelogError | undefined => {
    if (!(err instanceof PagelogError)) {
      violations.push(
        `${where} threw ${(err as Error)?.name ?? typeof err} (not a PagelogError): ${(err as Error)?.message ?? String(err)}`,
      );
      return undefined;
    }
    if (err.code === ErrorCode.POWER_CUT) {
      violations.push(`${where}: still running after ${OP_BUDGET} storage operations (a hang)`);
      return undefined;
    }
    if (!DOCUMENTED.has(err.code))
      violations.push(`${where} threw a PagelogError with an undocumented code ${String(err.code)}`);
    if (/pagelog bug/i.test(err.message)) violations.push(`${where}: ${err.message}`);
    if (!where.startsWith("close()") && !where.startsWith("append")) refusal ??= err;
    return err;
  };

  const afterRejecting = async (where: string, dir: LogDir | undefined) => {
    // The open decided to reject: no byte of any file may have changed (the marker aside, which
    // LogDir.open deletes before anything else, by design, and close() puts back).
    const now = await readTree(backing);
    if (hashTree(withoutMarker(now)) !== hashTree(withoutMarker(tree))) {
      violations.push(
        `${where} rejected the log but changed files first:\n${treeDiff(hashTree(withoutMarker(tree)), hashTree(withoutMarker(now)))}`,
      );
    }
    if (dir !== undefined) {
      try {
        await dir.close();
      } catch (err) {
        judge(err, "close() after a rejected log()");
      }
      // close() writes the checkpoints (it keeps the values read at open for a log it could not
      // open): their text may change, nothing else may.
      const after = hashTree(without(await readTree(backing), RECOVERY_CHECKPOINT, START_CHECKPOINT));
      const was = hashTree(without(tree, RECOVERY_CHECKPOINT, START_CHECKPOINT));
      if (after !== was && violations.length === 0)
        violations.push(`${where} rejected the log, and after close() the files differ:\n${treeDiff(was, after)}`);
    }
  };

  let dir: LogDir | undefined;
  let log: Log | undefined;
  let outcome: string;
  const records: Plain[] = [];
  let readError: PagelogError | undefined;
  try {
    dir = await LogDir.open(storage, { checkpointIntervalMs: -1 });
  } catch (err) {
    const e = judge(err, "LogDir.open");
    await afterRejecting("LogDir.open", undefined);
    outcome = `LogDir.open: ${e?.code ?? "not a PagelogError"}`;
    return finish();
  }
  try {
    log = await dir.log(PARTITION, LOG_OPTIONS);
  } catch (err) {
    const e = judge(err, "log()");
    await afterRejecting("log()", dir);
    outcome = `log(): ${e?.code ?? "not a PagelogError"}`;
    return finish();
  }
  const startOffset = log.startOffset;
  const endOffset = log.endOffset;
  const afterOpen = variant === "clean" ? await readTree(backing) : undefined;
  try {
    for await (const r of log.records()) records.push(plain(r));
  } catch (err) {
    readError = judge(err, "records()");
    if (readError === undefined) readError = new PagelogError("(not a PagelogError)", ErrorCode.CORRUPT);
    // After a clean open the old segments are checked on first use (lazy segments): damage in
    // one is found by this read. A first use writes nothing but an index it rebuilt from a log
    // that passed its checks: no `.log` byte changes, no file comes or goes.
    if (afterOpen !== undefined) {
      const now = hashTree(onlyLogsAndNames(await readTree(backing)));
      const was = hashTree(onlyLogsAndNames(afterOpen));
      if (now !== was)
        violations.push(`records() rejected (a first use) but changed files first:\n${treeDiff(was, now)}`);
    }
  }
  outcome =
    readError !== undefined
      ? `opened, records(): ${readError.code}`
      : records.length === originals.length && startOffset === 0
        ? "opened: every record"
        : `opened: ${records.length} records from ${startOffset}`;

  // Every record served is the one appended at its offset, in order, from the start offset.
  const tolerant = c.expect.kind === "damaged" && c.expect.timestamps === true ? c.expect.batch : undefined;
  for (const [k, r] of records.entries()) {
    const want = originals[r.offset];
    const same =
      want !== undefined &&
      (tolerant !== undefined && r.offset >= tolerant[0] && r.offset < tolerant[1]
        ? JSON.stringify({ ...r, timestamp: 0 }) === JSON.stringify({ ...want, timestamp: 0 })
        : JSON.stringify(r) === JSON.stringify(want));
    if (r.offset !== startOffset + k || !same) {
      violations.push(
        `records() #${k} is ${JSON.stringify(r)}, but ${want === undefined ? "no record" : JSON.stringify(want)} was appended at offset ${startOffset + k}`,
      );
      break;
    }
  }
  if (readError === undefined && startOffset + records.length !== endOffset) {
    violations.push(
      `records() ended after ${records.length} records from ${startOffset}, without an error, but endOffset is ${endOffset}`,
    );
  }
  checkExpectation(
    c.expect,
    variant,
    {
      loud: readError !== undefined,
      startOffset,
      endOffset,
      count: records.length,
      end: originals.length,
      midRecoveryPoint,
    },
    violations,
  );

  if (readError === undefined && violations.length === 0) {
    await checkLookups(log, records, violations, judge, c.expect.kind === "intact");
    // Progress: an append goes at the end and reads back.
    try {
      const at = log.endOffset;
      const { baseOffset } = await log.append([{ key: "progress", value: "after the open" }]);
      const [got] = await log.read(baseOffset, { maxRecords: 1 });
      if (baseOffset !== at || got?.offset !== at || new TextDecoder().decode(got.value!) !== "after the open")
        violations.push(`an append after the open went to ${baseOffset}, not the end ${at}, or did not read back`);
    } catch (err) {
      // Loud is allowed (a stray directory named like the next segment's index, say); anything
      // but a PagelogError is not.
      const e = judge(err, "append after the open");
      outcome += `, then append: ${e?.code ?? "not a PagelogError"}`;
    }
  }
  try {
    await dir.close();
  } catch (err) {
    judge(err, "close()");
  }
  for (const path of c.mustRemain ?? []) {
    const now = (await readTree(backing)).get(path);
    const was = tree.get(path);
    if (now === undefined || (now !== "dir" && was !== "dir" && Buffer.compare(now, was!) !== 0))
      violations.push(`${path} is not pagelog's, but it was removed or changed`);
  }
  return finish();

  function finish(): CaseResult {
    // Whatever the library refuses as damaged or unreadable, verify must not call clean (issue 9,
    // item 7). With no recovery-point checkpoint a torn tail is cut silently: not checked there.
    if (verdict?.clean === true && refusal !== undefined && VERIFY_MUST_SEE.has(refusal.code)) {
      violations.push(
        `pagelog verify calls these files clean, but the library refuses them: ${refusal.code}: ${refusal.message}`,
      );
    }
    for (const r of overReads.slice(0, 3))
      violations.push(`read of ${r.length} bytes at ${r.position} of ${r.path}, which holds ${r.size}`);
    return { outcome, violations };
  }
}

/** Codes that mean "these bytes are damaged or unreadable": verify must report what gives them. */
const VERIFY_MUST_SEE = new Set<string>([
  ErrorCode.CORRUPT,
  ErrorCode.UNSUPPORTED_COMPRESSION,
  ErrorCode.RECORD_TOO_LARGE,
]);

/** `pagelog verify`'s check (the function the CLI calls) on a fresh copy of `tree`: clean or not; it must change nothing. */
async function verifyVerdict(tree: Tree, violations: string[]): Promise<{ clean: boolean } | undefined> {
  const sim = await simOf(tree);
  try {
    const report = await verifyDir(sim, undefined);
    const unsupported = (report as { unsupported?: readonly unknown[] }).unsupported ?? [];
    if (hashTree(await readTree(sim)) !== hashTree(tree)) violations.push("pagelog verify changed files");
    return { clean: report.problems.length === 0 && unsupported.length === 0 };
  } catch (err) {
    if (!(err instanceof PagelogError))
      violations.push(`pagelog verify threw ${(err as Error)?.name}: ${(err as Error)?.message}`);
    return undefined;
  }
}

interface Seen {
  loud: boolean;
  startOffset: number;
  endOffset: number;
  count: number;
  end: number;
  midRecoveryPoint: number;
}

/** The per-file-kind rules of `Expect` (documented there). Records served were checked already. */
function checkExpectation(expect: Expect, variant: Variant, seen: Seen, violations: string[]): void {
  const got = `opened with ${seen.count} records [${seen.startOffset}, ${seen.startOffset + seen.count}) and endOffset ${seen.endOffset}`;
  const everything = (start: number) => {
    if (seen.startOffset !== start || seen.count !== seen.end - start || seen.endOffset !== seen.end)
      violations.push(`expected every record [${start}, ${seen.end}), ${got}: flushed records lost without an error`);
  };
  switch (expect.kind) {
    case "intact":
      if (seen.loud)
        violations.push(
          `expected every record [${expect.start ?? 0}, ${seen.end}) (the mutation is of nothing the log trusts), but reading failed`,
        );
      else everything(expect.start ?? 0);
      return;
    case "intactOrLoud":
      if (!seen.loud) everything(expect.start ?? 0);
      return;
    case "loud":
      if (!seen.loud) violations.push(`expected a PagelogError, ${got}`);
      return;
    case "damaged": {
      if (seen.loud) return;
      // Records below this are known flushed: damage among them must be loud, damage above may be cut.
      const flushed =
        variant === "unclean, no checkpoint"
          ? 0
          : variant === "unclean, recovery point mid-log"
            ? seen.midRecoveryPoint
            : seen.end;
      if (expect.at < flushed) everything(0);
      else if (seen.startOffset !== 0 || seen.count < expect.at) {
        violations.push(
          `damage at offset ${expect.at}${flushed > 0 ? ` (recovery point ${flushed})` : ""}: recovery may cut there, but ${got}: records before the damage lost`,
        );
      }
      return;
    }
    case "startPastEnd":
      if (seen.loud) return;
      if (variant === "clean")
        violations.push(
          `log start ${expect.start} is past the end ${seen.end} after a clean shutdown, which cannot be: expected PAGELOG_CORRUPT, ${got}`,
        );
      else if (seen.count !== 0 || seen.startOffset !== expect.start || seen.endOffset !== expect.start)
        violations.push(
          `log start ${expect.start} past the end after a crash: expected an empty log at ${expect.start} (or an error), ${got}`,
        );
      return;
  }
}

/**
 * read(offset) for every record and offsetForTimestamp around every timestamp, against what
 * records() gave. A PagelogError is loud, so allowed where the log's own bytes are damaged (a
 * batch whose header disagrees with the next one may read through records() and fail a lookup),
 * but not where only an index was: an index is rebuilt, never trusted into a failure.
 */
async function checkLookups(
  log: Log,
  records: readonly Plain[],
  violations: string[],
  judge: (err: unknown, where: string) => unknown,
  strict: boolean,
): Promise<void> {
  try {
    for (const r of records) {
      const [got] = await log.read(r.offset, { maxRecords: 1 });
      if (got === undefined || JSON.stringify(plain(got)) !== JSON.stringify(r)) {
        violations.push(
          `read(${r.offset}) gave ${got === undefined ? "nothing" : JSON.stringify(plain(got))}, records() gave ${JSON.stringify(r)}`,
        );
        return;
      }
    }
    const stamps = new Set<number>();
    for (const r of records) for (const d of [-1, 0, 1]) stamps.add(r.timestamp + d);
    if (records.length > 0) {
      stamps.add(Math.min(...records.map((r) => r.timestamp)) - 1000);
      stamps.add(Math.max(...records.map((r) => r.timestamp)) + 1000);
    }
    for (const t of [...stamps].filter(Number.isSafeInteger)) {
      const want = records.find((r) => r.timestamp >= t)?.offset ?? null;
      const got = await log.offsetForTimestamp(t);
      if (got !== want) {
        violations.push(`offsetForTimestamp(${t}) gave ${got}, a linear scan gives ${want}`);
        return;
      }
    }
  } catch (err) {
    if (judge(err, "a lookup") !== undefined && !strict) return;
    violations.push(`a lookup failed after records() had read every record: ${(err as Error).message}`);
  }
}
