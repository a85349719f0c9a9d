/**
 * One seed for every randomized test. `PAGELOG_SEED` is the base seed of a run, and nothing else:
 * each test derives its own seed from it and its own name (file and full test name), so running one
 * test alone draws exactly what it drew in the whole run, and adding a test changes no other test's
 * draws. Unset, vitest.config.ts draws a fresh base seed once for the whole run.
 *
 * A randomized test calls `testSeed()` inside the test: if the test then fails, the base seed and
 * the command that replays that one test are printed (`PAGELOG_SEED=… npx vitest run <file> -t …`).
 * A file whose random draws happen at import time (generated cases) uses `seedFor` and
 * `replayCommand` itself. fast-check tests pass `fastCheckParams()`, which adds the seed and, when
 * `PAGELOG_PATH` is set, fast-check's replay path of the shrunk counterexample.
 */
import { relative, resolve } from "node:path";
import { afterEach, expect, onTestFailed } from "vitest";
import { fileURLToPath } from "node:url";

const repo = resolve(import.meta.dirname, "../..");

/** Parses PAGELOG_SEED; a value that is not a seed fails loudly rather than replay something else. */
function parseSeed(text: string): number {
  const n = Number(text);
  if (text.trim() === "" || !Number.isSafeInteger(n) || n < 0)
    throw new TypeError(`PAGELOG_SEED must be a non-negative integer, got ${JSON.stringify(text)}`);
  return n;
}

/** Draws a base seed (outside vitest, where the config did not set one). */
export function drawBaseSeed(): number {
  return Math.floor(Math.random() * 2 ** 31);
}

/** The run's base seed: `PAGELOG_SEED`, or one drawn once for this process. */
export const BASE_SEED: number =
  process.env.PAGELOG_SEED === undefined ? drawBaseSeed() : parseSeed(process.env.PAGELOG_SEED);

/** murmur3's 32-bit finalizer: every input bit moves about half the output bits. */
function mix(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/**
 * The seed `name` gets from the base seed: FNV-1a over the name, mixed with the base seed (both its
 * 32-bit halves) by murmur3's finalizer. In [0, 2^31): what fast-check, crashTest and
 * `pagelog fuzz --seed` all take.
 */
export function seedFor(name: string, base: number = BASE_SEED): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 0x01000193);
  const low = mix((base >>> 0) + 0x9e3779b9);
  const high = mix(Math.floor(base / 2 ** 32) ^ 0x27d4eb2f);
  return mix(h ^ low ^ Math.imul(high, 0x165667b1)) >>> 1;
}

/** `s` quoted for a POSIX shell. */
function shellQuote(s: string): string {
  return /^[\w./:=@%+-]+$/.test(s) ? s : `'${s.replaceAll("'", `'\\''`)}'`;
}

/** `s` as a regular expression that matches it literally (vitest's -t is a RegExp). */
function regexLiteral(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * The command that replays `file` (absolute or from the repository root) with the base seed, only
 * the tests whose full name (suites and test, space-separated, as -t matches) is `testName` if given.
 */
export function replayCommand(file: string, testName?: string, extraEnv = "", base: number = BASE_SEED): string {
  const rel = relative(repo, resolve(repo, file)).split("\\").join("/");
  const only = testName === undefined ? "" : ` -t ${shellQuote(`^${regexLiteral(testName)}$`)}`;
  return `PAGELOG_SEED=${base}${extraEnv === "" ? "" : ` ${extraEnv}`} npx vitest run ${rel}${only}`;
}

/** The running test's file (from the repository root) and full name as -t matches it. */
function currentTest(): { file: string; name: string } {
  const state = expect.getState();
  if (state.testPath === undefined || state.currentTestName === undefined)
    throw new Error("testSeed() and fastCheckParams() are called inside a test");
  return {
    file: relative(repo, state.testPath).split("\\").join("/"),
    name: state.currentTestName.split(" > ").join(" "),
  };
}

/** The replay line printed when a randomized test fails. */
export function seedReport(file: string, name: string, seed: number, extraEnv = ""): string {
  return `randomized test failed: base seed PAGELOG_SEED=${BASE_SEED} (this test's seed ${seed})\nReplay: ${replayCommand(file, name, extraEnv)}`;
}

/**
 * The running test's own seed, derived from the base seed and its file and full name. If the test
 * fails, the base seed and the command that replays it are printed.
 */
export function testSeed(): number {
  const { file, name } = currentTest();
  const seed = seedFor(`${file} > ${name}`);
  onTestFailed(() => console.error(seedReport(file, name, seed)));
  return seed;
}

/**
 * `testSeed()` as fast-check parameters. `PAGELOG_PATH` (printed by fast-check as `path` on a
 * failure) replays the shrunk counterexample directly: use it with the -t of one test.
 */
export function fastCheckParams(): { seed: number; path?: string; endOnFailure?: boolean } {
  const { file, name } = currentTest();
  const seed = seedFor(`${file} > ${name}`);
  const path = process.env.PAGELOG_PATH;
  onTestFailed(() => console.error(seedReport(file, name, seed)));
  return path === undefined ? { seed } : { seed, path, endOnFailure: true };
}

/** The command that replays the running test, with `extraEnv` (e.g. `PAGELOG_PATH=…`) before it. */
export function testReplayCommand(extraEnv = ""): string {
  const { file, name } = currentTest();
  return replayCommand(file, name, extraEnv);
}

/**
 * For a file whose tests share one seed (drawn at import time): the seed derived from the base seed
 * and the file's path. Call it at the top of the file with `import.meta.url`; a failing test of the
 * file then prints the base seed and the command that replays that test.
 */
export function fileSeed(url: string): { seed: number; replay: string } {
  const file = relative(repo, fileURLToPath(url)).split("\\").join("/");
  const seed = seedFor(file);
  afterEach((context) => {
    if (context.task.result?.state === "fail")
      console.error(seedReport(file, context.task.fullTestName.split(" > ").join(" "), seed));
  });
  return { seed, replay: replayCommand(file) };
}
