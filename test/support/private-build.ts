/**
 * The run's one private build of the package, for tests that run it in child processes (the
 * SIGKILL tests, huge files, the lock across processes, the bench's children…). Not dist/:
 * `npm run build` empties dist/ first, and a suite that packs the package may rebuild it.
 *
 * The integration tier's global set-up (test/integration/setup/global-setup.ts) starts the build
 * once per run, in the background, into a directory inside node_modules/.cache (so that it
 * resolves the package's own optional dependency, @node-rs/crc32, as dist/ does), and removes it when the run
 * ends. It holds three entries side by side, as tsup.config.ts builds them: `node.js` (the
 * library's Node entry), `main.js` (the CLI) and `bench-child.js` (the bench's child process).
 * Eleven files once made a build each (about 4 CPU-s apiece); now the first to need it waits for
 * the one build, and the others find it done.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { inject } from "vitest";

const repo = resolve(import.meta.dirname, "../..");

declare module "vitest" {
  interface ProvidedContext {
    /** The directory of the run's private build (see privateBuild). */
    privateBuild: string | undefined;
  }
}

/** The entries, named as tsup.config.ts names them: `<name>.js` in the build directory. */
export const PRIVATE_ENTRIES = {
  node: "src/node.ts",
  main: "src/cli/main.ts",
  "bench-child": "src/bench/bench-child.ts",
} as const;

/** Written into the build directory when the build succeeded, or failed (with its output). */
const DONE = ".built";
const FAILED = ".failed";

function tsupArgs(dir: string): string[] {
  return [
    join(repo, "node_modules/tsup/dist/cli-default.js"),
    "--no-config",
    ...Object.entries(PRIVATE_ENTRIES).map(([name, path]) => `--entry.${name}=${path}`),
    "--format",
    "esm",
    "--target",
    "node20",
    "--out-dir",
    dir,
    "--silent",
  ];
}

/**
 * Starts the build into a fresh directory and returns at once (for the global set-up): the
 * directory, and a `stop` that waits for (or ends) the build and removes the directory.
 */
export function startPrivateBuild(): { dir: string; stop: () => Promise<void> } {
  mkdirSync(join(repo, "node_modules/.cache"), { recursive: true });
  const dir = mkdtempSync(join(repo, "node_modules/.cache/pagelog-build-"));
  let output = "";
  const child: ChildProcess = spawn(process.execPath, tsupArgs(dir), {
    cwd: repo,
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout!.on("data", (d: Buffer) => (output += String(d)));
  child.stderr!.on("data", (d: Buffer) => (output += String(d)));
  const ended = new Promise<void>((done) => {
    child.on("error", (err) => {
      writeFileSync(join(dir, FAILED), `${output}${err.message}\n`);
      done();
    });
    child.on("close", (code, signal) => {
      if (code === 0) writeFileSync(join(dir, DONE), "");
      else writeFileSync(join(dir, FAILED), `${output}tsup exited with ${code ?? signal}\n`);
      done();
    });
  });
  return {
    dir,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      await ended;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Waits (at most `timeoutMs`) until the build in `dir` is done; throws with tsup's output if it failed. */
export function awaitBuild(dir: string, timeoutMs = 300_000): string {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (existsSync(join(dir, DONE))) return dir;
    if (existsSync(join(dir, FAILED)))
      throw new Error(`the private build failed:\n${readFileSync(join(dir, FAILED), "utf8")}`);
    if (Date.now() > deadline) throw new Error(`the private build in ${dir} took over ${timeoutMs / 1000} s`);
    sleep(100);
  }
}

/**
 * The run's private build directory (`node.js`, `main.js`, `bench-child.js`), once it is built.
 * Shared by every file of the run: read it, never write or remove it.
 */
export function privateBuild(): string {
  const shared = inject("privateBuild");
  if (shared === undefined)
    throw new Error("no private build: it is made by the integration tier's global set-up (vitest.config.ts)");
  return awaitBuild(shared);
}
