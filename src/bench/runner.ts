/**
 * Running `pagelog bench`'s rows: each in a child process of its own (the separate entry
 * bench-child.ts, run with `process.execPath`, which prints one JSON line), so each row's peak
 * RSS is its own; or all in this process (`inProcess`, no RSS per row). Fixtures shared by rows
 * are built once per run, also in a child of their own, so their build is not counted in a row's RSS.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { type BenchContext, rssMarker } from "./context.js";
import type { BenchCrc } from "./crc.js";
import { failed, finish, kept, type Measured, peakRssMB, type RowResult } from "./measure.js";
import type { ResolvedBenchOptions } from "./options.js";
import { FIXTURES, type FixtureName, type RowSpec } from "./rows/rows.js";

/** What a child prints: its row's measurements and the peak RSS that counts for them. */
interface ChildReport {
  readonly measured: Measured[];
  readonly peakRssMB: number;
  /** The CRCs the references computed, folded: printed so they are never optimized away. */
  readonly kept: number;
}

interface RunDirs {
  /** This run's temp directory under `--dir`. */
  readonly disk: string;
  /** This run's temp directory under `--tmpfs`. */
  readonly tmpfs: string;
}

function contextFor(
  options: ResolvedBenchOptions,
  crc: BenchCrc,
  dirs: RunDirs,
): BenchContext & { rss: () => number | null } {
  const marker = rssMarker();
  return {
    diskDir: dirs.disk,
    tmpfsDir: dirs.tmpfs,
    repeats: options.repeats,
    scale: options.scale,
    crc: crc.crc,
    // pagelog's default CRC-32C is the one loadCrc set: no option needed.
    logOptions: {},
    markRss: marker.mark,
    rss: marker.value,
  };
}

function message(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).split("\n")[0]!;
}

/** What the parent hands a child: the run's options, its directories, and one row or fixture. */
export interface ChildJob {
  readonly options: ResolvedBenchOptions;
  readonly dirs: RunDirs;
  readonly row?: string;
  readonly fixture?: FixtureName;
}

/** In the child: runs one row (or builds one fixture) in the run's directories; returns its report. */
export async function runJob(job: ChildJob, crc: BenchCrc, row: RowSpec | undefined): Promise<ChildReport> {
  const ctx = contextFor(job.options, crc, job.dirs);
  if (job.fixture !== undefined) {
    const build = FIXTURES[job.fixture];
    if (build === undefined) throw new Error(`no fixture ${job.fixture}`);
    await build(ctx);
    return { measured: [], peakRssMB: peakRssMB(), kept: 0 };
  }
  if (row === undefined) throw new Error(`no row ${job.row}`);
  const measured = await row.run(ctx);
  return { measured, peakRssMB: ctx.rss() ?? peakRssMB(), kept: kept() };
}

/**
 * The child entry, built next to the CLI (dist/bench-child.js). Running from the sources (no
 * build) there is none: the rows then need `inProcess`.
 */
export function childScript(): string | undefined {
  const path = fileURLToPath(new URL("./bench-child.js", import.meta.url));
  return existsSync(path) ? path : undefined;
}

/**
 * Runs rows one after another, in child processes or in this one; a row that fails is reported
 * as failed and the others still run. `progress` hears about each row as it starts and ends.
 */
export class Runner {
  readonly #options: ResolvedBenchOptions;
  readonly #crc: BenchCrc;
  readonly #dirs: RunDirs;
  readonly #script: string | undefined;
  readonly #built = new Set<string>();
  #child: ChildProcess | undefined;

  readonly #progress: (line: string) => void;

  constructor(
    options: ResolvedBenchOptions,
    crc: BenchCrc,
    dirs: RunDirs,
    script: string | undefined,
    progress: (line: string) => void,
  ) {
    this.#options = options;
    this.#crc = crc;
    this.#dirs = dirs;
    this.#script = options.inProcess ? undefined : script;
    this.#progress = progress;
  }

  get inChildren(): boolean {
    return this.#script !== undefined;
  }

  /**
   * Ends the running child, if any (on SIGINT or SIGTERM). SIGTERM, not SIGKILL: a kafka row's
   * child kills the broker JVMs it started (their own process groups) on SIGTERM, and a SIGKILL
   * would leave them running; a child with no handler dies of it at once all the same.
   */
  kill(): void {
    this.#child?.kill("SIGTERM");
  }

  async row(spec: RowSpec): Promise<RowResult[]> {
    try {
      if (spec.fixture !== undefined && !this.#built.has(spec.fixture)) {
        const started = Date.now();
        if (this.#script === undefined) await FIXTURES[spec.fixture](contextFor(this.#options, this.#crc, this.#dirs));
        else await this.#spawn({ fixture: spec.fixture });
        this.#built.add(spec.fixture);
        this.#progress(`built the ${spec.fixture} fixture in ${((Date.now() - started) / 1000).toFixed(1)} s`);
      }
      if (this.#script === undefined) {
        const measured = await spec.run(contextFor(this.#options, this.#crc, this.#dirs));
        return measured.map((m) => finish(m, null));
      }
      const report = await this.#spawn({ row: spec.name });
      return report.measured.map((m) => finish(m, report.peakRssMB));
    } catch (err) {
      return [failed(spec.name, message(err))];
    }
  }

  /** Runs one job in a child process of this run (the job as JSON, its only argument); resolves with its report. */
  #spawn(what: { row: string } | { fixture: FixtureName }): Promise<ChildReport> {
    const job: ChildJob = { options: this.#options, dirs: this.#dirs, ...what };
    const argv = [...process.execArgv, this.#script!, JSON.stringify(job)];
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, argv, { stdio: ["ignore", "pipe", "pipe"] });
      this.#child = child;
      let stdout = "";
      let stderr = "";
      child.stdout.setEncoding("utf8").on("data", (t: string) => (stdout += t));
      child.stderr.setEncoding("utf8").on("data", (t: string) => (stderr += t));
      child.on("error", reject);
      child.on("close", (code, signal) => {
        this.#child = undefined;
        const last = stdout.trim().split("\n").pop() ?? "";
        if (code === 0) {
          try {
            resolve(JSON.parse(last) as ChildReport);
          } catch {
            reject(new Error(`the child process printed no report: ${last.slice(0, 200)}`));
          }
          return;
        }
        const why = stderr.trim().split("\n").filter(Boolean).pop() ?? `exit ${code ?? signal}`;
        reject(new Error(why.replace(/^pagelog bench: /, "")));
      });
    });
  }
}
