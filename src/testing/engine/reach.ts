/**
 * The fuzzer's reach: how often each decision fired in a run, counted from real events, so a
 * run can show (and a test can require) that its workloads reach every recovery path. A bug in a
 * path no schedule reaches escapes however many schedules run: TigerBeetle's lesson that "not the
 * database, but the VOPR" never produced the workload.
 *
 * Three sources: the engine's own events (crash steps, a cut inside a call or inside recovery,
 * injected faults that failed a call), what each power cut decided (`SimStorage.lastCrash`), and
 * what the log's opens decided (`AdapterLog.recoveryDecisions`, pagelog's from `log.recovery`).
 */
import type { CrashReport } from "../../storage/sim-storage.js";

/** Decision name → how many times it fired. Every decision the run could reach is a key, 0 included. */
export type Reach = Readonly<Record<string, number>>;

/** What each of the engine's and the simulator's decisions means (a log's own say their own). */
const DECISIONS: Readonly<Record<string, string>> = {
  "crash-step": "power cut between calls (a crash step)",
  "cut-in-call": "the schedule's power cut fell inside a call",
  "nested-cut": "power cut inside recovery (a nested cut)",
  "recovered-before-cut": "recovery finished before its nested cut",
  "records-cleaned": "records a compact step dropped (the compaction workload only)",
  "fsync-failed": "an injected fsync failure failed a call",
  "write-failed": "an injected write failure failed a call",
  "dir-fsync-failed": "an injected directory fsync failure failed a call",
  "page-written": "a dirty page reached the disk whole at a cut",
  "page-lost": "a dirty page was lost at a cut",
  "page-torn": "a dirty page was torn at a cut (some sectors only)",
  "size-kept": "an unsynced size change survived a cut",
  "size-undone": "an unsynced size change was undone by a cut",
  "create-lost": "an unsynced file creation was lost at a cut",
  "rename-lost": "an unsynced rename was lost at a cut",
  "remove-lost": "an unsynced removal was lost at a cut",
};

const ENGINE = ["crash-step", "cut-in-call", "nested-cut", "recovered-before-cut"];
const FAULTS = ["fsync-failed", "write-failed", "dir-fsync-failed"];
const SIM = [
  "page-written",
  "page-lost",
  "page-torn",
  "size-kept",
  "size-undone",
  "create-lost",
  "rename-lost",
  "remove-lost",
];

const FATE_OF: ReadonlyArray<readonly [string, keyof CrashReport]> = [
  ["page-written", "pagesWritten"],
  ["page-lost", "pagesLost"],
  ["page-torn", "pagesTorn"],
  ["size-kept", "sizesKept"],
  ["size-undone", "sizesUndone"],
  ["create-lost", "createsLost"],
  ["rename-lost", "renamesLost"],
  ["remove-lost", "removesLost"],
];

/** The decision an injected fault on `op` counts as, when it fails a call. */
export const FAULT_DECISION = { sync: "fsync-failed", write: "write-failed", syncDir: "dir-fsync-failed" } as const;

/** Counts one schedule's decisions. */
export class ReachCounter {
  readonly #counts = new Map<string, number>();

  /** Starts every decision the run can reach at 0 (fault decisions only if it injects faults). */
  constructor(faults: boolean) {
    for (const name of [...ENGINE, ...(faults ? FAULTS : []), ...SIM]) this.#counts.set(name, 0);
  }

  add(name: string, n = 1): void {
    this.#counts.set(name, (this.#counts.get(name) ?? 0) + n);
  }

  /** What one power cut decided. */
  addCrash(report: CrashReport | undefined): void {
    if (report === undefined) return;
    for (const [name, field] of FATE_OF) this.add(name, report[field]);
  }

  /** What one open of the log decided, as its adapter reports it. */
  addOpen(decisions: Reach | undefined): void {
    for (const [name, n] of Object.entries(decisions ?? {})) this.add(name, n);
  }

  get reach(): Reach {
    return Object.fromEntries(this.#counts);
  }
}

/** Two reaches added up (the keys of both). */
export function sumReach(a: Reach, b: Reach): Reach {
  const out: Record<string, number> = { ...a };
  for (const [name, n] of Object.entries(b)) out[name] = (out[name] ?? 0) + n;
  return out;
}

/** The decisions that never fired. */
function neverFired(reach: Reach): string[] {
  return Object.entries(reach)
    .filter(([, n]) => n === 0)
    .map(([name]) => name);
}

/** The table a run prints: one line per decision, its count, and what it means. */
export function formatReach(reach: Reach, meanings: Readonly<Record<string, string>> = {}): string[] {
  const entries = Object.entries(reach);
  const width = Math.max(0, ...entries.map(([name]) => name.length));
  const countWidth = Math.max(0, ...entries.map(([, n]) => String(n).length));
  return entries.map(([name, n]) => {
    const meaning = meanings[name] ?? DECISIONS[name];
    return `  ${name.padEnd(width)}  ${String(n).padStart(countWidth)}${n === 0 ? "  NEVER" : ""}${meaning === undefined ? "" : `  ${meaning}`}`;
  });
}

/**
 * Why a run's reach falls short, or undefined: every decision that never fired, named, with the
 * run's seed and the command that replays the run.
 */
export function reachFailure(
  reach: Reach,
  run: { readonly schedules: number; readonly seed: number | string; readonly replay: string },
): string | undefined {
  const missing = neverFired(reach);
  if (missing.length === 0) return undefined;
  return (
    `the workloads never reached ${missing.length === 1 ? "a decision" : `${missing.length} decisions`} in ${run.schedules} schedule(s) of seed ${run.seed}: ${missing.join(", ")}\n` +
    formatReach(reach).join("\n") +
    `\nReplay: ${run.replay}`
  );
}
