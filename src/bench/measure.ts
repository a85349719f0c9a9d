/**
 * `pagelog bench`'s measuring tools: a clock, min / median / max over repeats, a row's result
 * and its goal (from goals.ts), the process's peak RSS, and a seeded PRNG. Figures are printed,
 * never asserted.
 */
import { type Goal, goalOf, goalText, meets } from "./goals.js";

/** One MB in the bench's figures: 2^20 bytes (RSS comes in KiB, so its MB is the same unit). */
export const MB = 1 << 20;

export interface Stats {
  readonly min: number;
  readonly median: number;
  readonly max: number;
}

/** Min / median / max (the mean of the middle two for an even count). */
export function stats(values: readonly number[]): Stats {
  if (values.length === 0) throw new Error("no samples");
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const median = sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  return { min: sorted[0]!, median, max: sorted[sorted.length - 1]! };
}

/** Milliseconds `fn` took, and what it returned. */
export async function timed<T>(fn: () => Promise<T> | T): Promise<{ ms: number; value: T }> {
  const start = process.hrtime.bigint();
  const value = await fn();
  return { ms: Number(process.hrtime.bigint() - start) / 1e6, value };
}

let sink = 0;

/** Keeps a computed value (a CRC) live, so the work that made it is never optimized away. */
export function keep(value: number): void {
  sink ^= value;
}

/** The values kept so far, folded (for a process's report: reading it keeps the sink alive too). */
export function kept(): number {
  return sink;
}

/** Bytes per millisecond as MB/s. */
export function mbPerSecond(bytes: number, ms: number): number {
  return bytes / MB / (Math.max(ms, 1e-6) / 1000);
}

/** Operations per millisecond as operations per second. */
export function perSecond(count: number, ms: number): number {
  return count / (Math.max(ms, 1e-6) / 1000);
}

/** The peak resident set size of this process so far, in MB. */
export function peakRssMB(): number {
  return process.resourceUsage().maxRSS / 1024;
}

/** What a row measured, before the peak RSS of its process is known. */
export interface Measured {
  readonly row: string;
  readonly unit: string;
  /** One figure per repeat. */
  readonly pagelog: readonly number[];
  /** The reference's figure per repeat, measured in the same process; null when there is none. */
  readonly reference: readonly number[] | null;
  /** Per repeat; pagelog / reference when omitted. */
  readonly ratio?: readonly number[];
  /**
   * Only for a row with no entry in src/bench/goals.ts (which is where goals live): its goal, or
   * null for none. Omitted for every listed row.
   */
  readonly goal?: Goal | null;
  readonly notes: readonly string[];
  /**
   * Set when the row could not run here (what it needs is absent: Java for the kafka rows): why, in
   * one line. Its figures are then empty, and it is printed as skipped, not failed.
   */
  readonly skipped?: string;
}

/** A row as printed: the table's line, and one element of `--json`'s `rows`. */
export interface RowResult {
  readonly row: string;
  readonly unit: string | null;
  readonly pagelog: Stats | null;
  readonly reference: Stats | null;
  readonly ratio: Stats | null;
  readonly goal: string | null;
  /** Null when the row has no goal, or its goal is about an RSS that was not measured (`--in-process`). */
  readonly met: boolean | null;
  readonly peakRssMB: number | null;
  readonly notes: readonly string[];
  /** Set when the row failed: what went wrong. */
  readonly error?: string;
  /** Set when the row could not run here: why (the run still exits 0). */
  readonly skipped?: string;
}

/** Summarizes a measured row, now that the peak RSS of its process is known (or null). */
export function finish(m: Measured, peakRss: number | null): RowResult {
  if (m.skipped !== undefined) return skippedRow(m.row, m.skipped);
  const pagelog = stats(m.pagelog);
  const reference = m.reference === null ? null : stats(m.reference);
  const ratios = m.ratio ?? (m.reference === null ? null : m.pagelog.map((p, i) => p / m.reference![i]!));
  const ratio = ratios === null ? null : stats(ratios);
  const peakRssMB = peakRss === null ? null : Math.round(peakRss * 10) / 10;
  const goal = goalOf(m.row, m.goal);
  let met: boolean | null = null;
  if (goal !== null) {
    const figure = goal.on === "ratio" ? ratio?.median : goal.on === "pagelog" ? pagelog.median : peakRssMB;
    met = figure === undefined || figure === null ? null : meets(goal, figure);
  }
  return {
    row: m.row,
    unit: m.unit,
    pagelog,
    reference,
    ratio,
    goal: goal === null ? null : goalText(goal),
    met,
    peakRssMB,
    notes: m.notes,
  };
}

/** A row without figures: one that threw (`error`, the run exits 1) or could not run here (`skipped`). */
function rowWithoutFigures(row: string, outcome: { error: string } | { skipped: string }): RowResult {
  const base = { row, unit: null, pagelog: null, reference: null, ratio: null, goal: null, peakRssMB: null, notes: [] };
  return "error" in outcome ? { ...base, met: false, error: outcome.error } : { ...base, met: null, ...outcome };
}

/** A row that threw: reported with its error, and the run exits 1. */
export function failed(row: string, error: string): RowResult {
  return rowWithoutFigures(row, { error });
}

/** A row that could not run here (`reason`, one line): no figures, no goal judged, not a failure. */
function skippedRow(row: string, reason: string): RowResult {
  return rowWithoutFigures(row, { skipped: reason });
}

/** A measured row that could not run here: what a row returns instead of figures. */
export function skipped(row: string, reason: string): Measured {
  return { row, unit: "", pagelog: [], reference: null, notes: [], skipped: reason };
}

/** xorshift32: a tiny seeded PRNG, so every run draws the same lookups. */
export function xorshift(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x;
  };
}

/** A uniform integer in [0, n) from a xorshift. */
export function below(next: () => number, n: number): number {
  return Math.floor((next() / 0x1_0000_0000) * n);
}
