/**
 * Loading a reader's module named on the command line (`--adapter`, `--policies`). Whatever goes
 * wrong is a usage error (exit 2) that speaks of *their* files, as they typed them: which file is
 * missing, where a syntax error is (file:line:column and the line; Node gives no location for an
 * ES module's), never pagelog's own chunk paths; and a top-level await that never settles ends
 * with a message instead of Node's silent exit 13.
 */
import { spawnSync } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import { resolve, sep } from "node:path";
import { pathToFileURL } from "node:url";
import { framesOfTheirCode } from "../../testing/engine/error-report.js";
import { UsageError } from "../terminal/io.js";

/** How long a module may take to load (its top-level awaits included). */
const LOAD_LIMIT_MS = 10_000;

/** The module at `path` (ES or CommonJS); a usage error naming `--flag` when it cannot be loaded. */
export async function importUserModule(path: string, flag: string): Promise<Record<string, unknown>> {
  const file = resolve(path);
  const cannot = (why: string) => new UsageError(`--${flag}: cannot load '${path}': ${why}`);
  if (!existsSync(file)) throw cannot(`no such file (looked for ${shownPath(file)})`);
  // Node's own message for a folder names the importing file: one of pagelog's chunks.
  if (statSync(file).isDirectory()) throw cannot("it is a directory, not a module file");
  try {
    return await settledInTime(import(/* @vite-ignore */ pathToFileURL(file).href), path, flag);
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw cannot(loadFailure(err, file));
  }
}

/**
 * The import, or a usage error when it cannot finish: at once when the event loop runs dry with it
 * still pending (nothing is left that could settle its top-level await: Node would exit 13 with
 * no word), or after LOAD_LIMIT_MS.
 */
function settledInTime<T>(loading: Promise<T>, path: string, flag: string): Promise<T> {
  return new Promise<T>((resolvePromise, reject) => {
    const refuse = (why: string) => {
      done();
      reject(new UsageError(`--${flag}: '${path}' ${why}`));
    };
    const onIdle = () =>
      refuse("never finished loading: its top-level await waits for something that can never happen");
    const timer = setTimeout(
      () => refuse(`did not finish loading within ${LOAD_LIMIT_MS / 1000} s: a top-level await that never settles?`),
      LOAD_LIMIT_MS,
    );
    timer.unref(); // the limit must not keep the process up, or 'beforeExit' could never tell
    process.on("beforeExit", onIdle);
    function done() {
      clearTimeout(timer);
      process.off("beforeExit", onIdle);
    }
    loading.then(
      (mod) => (done(), resolvePromise(mod)),
      (err: unknown) => (done(), reject(err)),
    );
  });
}

/** `./dir/file.mjs` for a path under the working directory, else the absolute path. */
function shownPath(absolute: string): string {
  const cwd = process.cwd() + sep;
  return absolute.startsWith(cwd) ? `.${sep}${absolute.slice(cwd.length)}` : absolute;
}

/** `text` with absolute paths and file URLs under the working directory shown relative to it. */
function relativePaths(text: string): string {
  const cwd = process.cwd();
  return text.replaceAll(`${pathToFileURL(cwd).href}/`, `.${sep}`).replaceAll(`${cwd}${sep}`, `.${sep}`);
}

/** Why `file` did not load, in one line that names their files only. */
function loadFailure(err: unknown, file: string): string {
  const syntax = syntaxErrorAt(file);
  if (syntax !== undefined) return syntax;
  if (!(err instanceof Error)) return relativePaths(String(err));
  const [first = "", ...rest] = err.message.split("\n");
  // CommonJS: "Cannot find module './x'" then "Require stack:" and the requiring files.
  const requiredFrom = rest.find((line) => line.startsWith("- "))?.slice(2);
  // Where in their files it threw while loading (a frame with a place: not JSON.parse's, not a loader's).
  const where = framesOfTheirCode(err.stack)
    .find((frame) => /:\d+:\d+\)?$/.test(frame) && !/[/\\]node_modules[/\\]/.test(frame))
    ?.trim();
  return relativePaths(
    `${err.name === "Error" ? "" : `${err.name}: `}${first}` +
      (requiredFrom === undefined ? "" : ` (required from ${requiredFrom})`) +
      (where === undefined || requiredFrom !== undefined ? "" : ` (${where})`),
  );
}

/**
 * Where `file` has a syntax error, as `SyntaxError: … at ./f.mjs:3:14: "the line"`, or undefined
 * when its own syntax is fine. Node's `--check` parses the file alone, as ES module or CommonJS by
 * the same rules as `import` (the thrown SyntaxError of an ES module carries no location).
 */
function syntaxErrorAt(file: string): string | undefined {
  if (!/\.[cm]?js$/.test(file)) return undefined;
  const check = spawnSync(process.execPath, ["--check", file], { encoding: "utf8", timeout: LOAD_LIMIT_MS });
  if (check.status === 0 || typeof check.stderr !== "string") return undefined;
  // "<file>:<line>\n<source line>\n<spaces>^\n\nSyntaxError: <message>"
  const lines = check.stderr.split("\n");
  const at = lines.findIndex((line) => /:\d+$/.test(line));
  const message = lines.find((line) => line.startsWith("SyntaxError: "));
  if (at < 0 || message === undefined) return undefined;
  const lineNumber = /:(\d+)$/.exec(lines[at]!)![1];
  const source = lines[at + 1] ?? "";
  const caret = (lines[at + 2] ?? "").indexOf("^");
  const column = caret >= 0 ? `:${caret + 1}` : "";
  return `${message} at ${shownPath(file)}:${lineNumber}${column}: "${source.trim()}"`;
}
