/**
 * How a violation report shows an error the log under test threw. A reader's course policy that
 * failed (`PAGELOG_POLICY`) is their bug, not pagelog's: the report names their function and
 * shows the stack of *their* code only (where their function threw), never pagelog's frames, which
 * say nothing to them. Any other error keeps its whole stack: that is a bug in the log.
 */
import { ErrorCode, PagelogError } from "../../errors.js";

/** The directory pagelog's own code runs from (`…/pagelog/dist/` built, `…/src/` from source). */
const OWN_ROOT = ownRoot();

function ownRoot(): string | undefined {
  // This module's own frame: `at ownRoot (file:///…/dist/chunk-….js:12:3)`.
  const frame = (new Error().stack ?? "").split("\n").find((line) => /^\s+at /.test(line));
  if (frame === undefined) return undefined;
  const where = frame.trim().replace(/^at /, "");
  const file = (/\((.*)\)$/.exec(where)?.[1] ?? where).replace(/(:\d+){1,2}$/, "");
  for (const dir of ["/dist/", "\\dist\\", "/src/", "\\src\\"]) {
    const at = file.lastIndexOf(dir);
    if (at >= 0) return file.slice(0, at + dir.length);
  }
  return undefined;
}

/** The PAGELOG_POLICY error in `err` or its causes, if any. */
export function policyFailure(err: unknown): PagelogError | undefined {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth++)
    if (e instanceof PagelogError && e.code === ErrorCode.POLICY) return e;
  return undefined;
}

/** The frames of `stack` that are not pagelog's own code nor the runtime's internals. */
export function framesOfTheirCode(stack: string | undefined, ownRootDir = OWN_ROOT): string[] {
  return (stack ?? "")
    .split("\n")
    .filter((line) => /^\s+at /.test(line))
    .filter((line) => !/[( ]node:/.test(line))
    .filter((line) => ownRootDir === undefined || !line.includes(ownRootDir))
    .map((line) => `    ${line.trim()}`);
}

/**
 * An error as a report shows it: for a reader's policy, the message ("your recover threw …")
 * and the frames of their code in what it threw; otherwise the error's whole stack.
 */
export function errorReport(err: unknown): string {
  const policy = policyFailure(err);
  if (policy === undefined) return (err as Error)?.stack ?? String(err);
  const cause = policy.cause;
  const theirs = cause instanceof Error ? framesOfTheirCode(cause.stack) : [];
  return [policy.message, ...theirs].join("\n");
}
