/**
 * `pagelog bench`'s output: a header saying where and how the run ran, then one text table (row,
 * unit, pagelog min / median / max, reference median, ratio min / median / max, goal, met, peak
 * RSS) and the rows' notes; or, with `--json`, one JSON document and nothing else.
 */
import type { RowResult, Stats } from "./measure.js";
import { plural } from "../text/plural.js";

export interface BenchMeta {
  readonly node: string;
  readonly cpu: string;
  readonly cores: number;
  /** Where the fsync rows ran (the directory given, not the run's temp directory under it). */
  readonly dir: string;
  /** Where the CPU-bound rows ran. */
  readonly tmpfs: string;
  readonly crc: string;
  readonly scale: number;
  readonly repeats: number;
  /** "child-processes" (a peak RSS per row) or "in-process". */
  readonly mode: string;
}

/** A figure in about three significant digits. */
function figure(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return "-";
  const a = Math.abs(n);
  if (a >= 100) return n.toFixed(0);
  if (a >= 10) return n.toFixed(1);
  if (a >= 1) return n.toFixed(2);
  if (a === 0) return "0";
  return n.toPrecision(2);
}

/** Ratios: two decimals, up to 10. */
const ratioFigure = (n: number | undefined): string => (n === undefined ? "-" : n < 10 ? n.toFixed(2) : figure(n));

function headerLines(meta: BenchMeta): string[] {
  return [
    `pagelog bench · node ${meta.node} · ${meta.cpu} · ${plural(meta.cores, "core")}`,
    `real disk (fsync rows): ${meta.dir} · tmpfs (CPU rows): ${meta.tmpfs}`,
    `CRC-32C: ${meta.crc} · scale ${meta.scale} · repeats ${meta.repeats} · ${meta.mode === "in-process" ? "rows run in-process (no peak RSS per row)" : "each row in a child process of its own"}`,
  ];
}

const COLUMNS = [
  "row",
  "unit",
  "pagelog min",
  "median",
  "max",
  "ref median",
  "ratio min",
  "median",
  "max",
  "goal",
  "met",
  "peak RSS MB",
] as const;

/**
 * Whether the goals can be judged: they are set for full-size runs, and below `--scale 1` the
 * sizes and counts they are about are smaller (a 40 MB log is not a 4 GB one), so "met" says
 * "n/a" rather than a NO that means nothing.
 */
function goalsJudged(scale: number): boolean {
  return scale >= 1;
}

function metCell(r: RowResult, scale: number): string {
  if (r.met === null) return "-";
  if (r.error !== undefined) return "NO";
  if (!goalsJudged(scale)) return `n/a (scale ${scale})`;
  return r.met ? "yes" : "NO";
}

function cells(r: RowResult, scale: number): string[] {
  if (r.error !== undefined) return [r.row, "FAILED", "", "", "", "", "", "", "", "", metCell(r, scale), ""];
  if (r.skipped !== undefined) return [r.row, "skipped", "", "", "", "", "", "", "", "", "-", ""];
  const p: Stats | null = r.pagelog;
  return [
    r.row,
    r.unit ?? "",
    figure(p?.min),
    figure(p?.median),
    figure(p?.max),
    figure(r.reference?.median),
    ratioFigure(r.ratio?.min),
    ratioFigure(r.ratio?.median),
    ratioFigure(r.ratio?.max),
    r.goal ?? "-",
    metCell(r, scale),
    figure(r.peakRssMB),
  ];
}

/** The table: text columns left-aligned, figures right-aligned. */
function renderTable(rows: readonly RowResult[], scale = 1): string[] {
  const body = rows.map((r) => cells(r, scale));
  const all = [[...COLUMNS], ...body];
  const widths = COLUMNS.map((_, c) => Math.max(...all.map((line) => line[c]!.length)));
  const left = new Set([0, 1, 9]);
  const line = (values: readonly string[]) =>
    values
      .map((v, c) => (left.has(c) ? v.padEnd(widths[c]!) : v.padStart(widths[c]!)))
      .join("  ")
      .trimEnd();
  const out = [line(all[0]!), widths.map((w) => "-".repeat(w)).join("  ")];
  for (const values of body) out.push(line(values));
  return out;
}

/** The notes of each row, and the error of each failed one, under the table. */
function noteLines(rows: readonly RowResult[]): string[] {
  const out: string[] = [];
  for (const r of rows) {
    if (r.error !== undefined) out.push(`${r.row}: FAILED: ${r.error}`);
    if (r.skipped !== undefined) out.push(`${r.row}: skipped: ${r.skipped}`);
    for (const note of r.notes) out.push(`${r.row}: ${note}`);
  }
  return out;
}

export function renderText(meta: BenchMeta, rows: readonly RowResult[]): string {
  const notes = noteLines(rows);
  return [
    ...headerLines(meta),
    "",
    ...renderTable(rows, meta.scale),
    "",
    "ratio = pagelog / reference, per repeat; MB = 2^20 bytes.",
    ...(goalsJudged(meta.scale)
      ? []
      : [
          `goals: n/a at scale ${meta.scale}: the goals are set for full-size runs (--scale 1), and these sizes and counts are ${meta.scale} of those, so no goal is judged met or not.`,
        ]),
    ...(notes.length === 0 ? [] : ["", ...notes]),
    "",
  ].join("\n");
}

export function renderJson(meta: BenchMeta, rows: readonly RowResult[]): string {
  // Below full scale "met" is null (not judged), as in the text's "n/a".
  const judged = goalsJudged(meta.scale);
  const shown = judged ? rows : rows.map((r) => (r.met === null || r.error !== undefined ? r : { ...r, met: null }));
  return `${JSON.stringify({ meta: { ...meta, goalsJudged: judged }, rows: shown }, null, 2)}\n`;
}
