/**
 * Running `pagelog bench`'s rows: each in a child process of its own (`pagelog bench --child-row
 * NAME`, which prints one JSON line), so each row's peak RSS is its own; or all in this process
 * (`--in-process`, no RSS per row). Fixtures shared by rows are built once per run, also in a
 * child of their own, so their build is not counted in a row's RSS.
 */
import { type ChildProcess, spawn } from "node:child_process";
import type { CliIo } from "../io.js";
import { type BenchContext, rssMarker } from "./context.js";
import { failed, finish, kept, type Measured, peakRssMB, type RowResult } from "./measure.js";
import { type BenchOptions, childArgs } from "./options.js";
import { FIXTURES, type FixtureName, type RowSpec } from "./rows.js";

/** What a child prints: its row's measurements and the peak RSS that counts for them. */
export interface ChildReport {
  readonly measured: Measured[];
  readonly peakRssMB: number;
  /** The CRCs the references computed, folded: printed so they are never optimized away. */
  readonly kept: number;
}

export interface RunDirs {
  /** This run's temp directory under `--dir`. */
  readonly disk: string;
  /** This run's temp directory under `--tmpfs`. */
  readonly tmpfs: string;
}

export function contextFor(options: BenchOptions, dirs: RunDirs): BenchContext & { rss: () => number | null } {
  const marker = rssMarker();
  return {
    diskDir: dirs.disk,
    tmpfsDir: dirs.tmpfs,
    repeats: options.repeats,
    scale: options.scale,
    crc: options.crc,
    logOptions: options.crcName === "native" ? { crc32c: options.crc } : {},
    markRss: marker.mark,
    rss: marker.value,
  };
}

function message(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).split("\n")[0]!;
}

/** In the child: runs one row (or builds one fixture) in the given run directories, prints its report. */
export async function childMain(options: BenchOptions, what: { row?: RowSpec; fixture?: string }, io: CliIo) {
  const ctx = contextFor(options, { disk: options.dir, tmpfs: options.tmpfs });
  if (what.fixture !== undefined) {
    const build = FIXTURES[what.fixture as FixtureName];
    if (build === undefined) throw new Error(`no fixture ${what.fixture}`);
    await build(ctx);
    io.stdout.write(`${JSON.stringify({ measured: [], peakRssMB: peakRssMB(), kept: 0 })}\n`);
    return;
  }
  const measured = await what.row!.run(ctx);
  const report: ChildReport = { measured, peakRssMB: ctx.rss() ?? peakRssMB(), kept: kept() };
  io.stdout.write(`${JSON.stringify(report)}\n`);
}

/**
 * Runs rows one after another, in child processes or in this one; a row that fails is reported
 * as failed and the others still run. `progress` hears about each row as it starts and ends.
 */
export class Runner {
  readonly #options: BenchOptions;
  readonly #dirs: RunDirs;
  readonly #script: string | undefined;
  readonly #built = new Set<string>();
  #child: ChildProcess | undefined;

  readonly #progress: (line: string) => void;

  constructor(options: BenchOptions, dirs: RunDirs, script: string | undefined, progress: (line: string) => void) {
    this.#options = options;
    this.#dirs = dirs;
    this.#script = options.inProcess ? undefined : script;
    this.#progress = progress;
  }

  get inChildren(): boolean {
    return this.#script !== undefined;
  }

  /** Kills the running child, if any (on SIGINT). */
  kill(): void {
    this.#child?.kill("SIGKILL");
  }

  async row(spec: RowSpec): Promise<RowResult[]> {
    try {
      if (spec.fixture !== undefined && !this.#built.has(spec.fixture)) {
        const started = Date.now();
        if (this.#script === undefined) await FIXTURES[spec.fixture](contextFor(this.#options, this.#dirs));
        else await this.#spawn(["--child-fixture", spec.fixture]);
        this.#built.add(spec.fixture);
        this.#progress(`built the ${spec.fixture} fixture in ${((Date.now() - started) / 1000).toFixed(1)} s`);
      }
      if (this.#script === undefined) {
        const measured = await spec.run(contextFor(this.#options, this.#dirs));
        return measured.map((m) => finish(m, null));
      }
      const report = await this.#spawn(["--child-row", spec.name]);
      return report.measured.map((m) => finish(m, report.peakRssMB));
    } catch (err) {
      return [failed(spec.name, message(err))];
    }
  }

  /** Runs `pagelog bench <args>` in a child process of this run; resolves with its report. */
  #spawn(args: string[]): Promise<ChildReport> {
    const argv = [...process.execArgv, this.#script!, "bench", ...args, ...childArgs(this.#options, this.#dirs)];
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
