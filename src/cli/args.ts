/**
 * Argument parsing shared by the commands: `node:util.parseArgs`, with its errors turned into
 * one-line `UsageError`s (exit 2), and integer options checked the same way everywhere.
 */
import { UsageError } from "./io.js";

/** Runs a `parseArgs` call, turning its `ERR_PARSE_ARGS_*` errors into a one-line UsageError. */
export function parsing<R>(parse: () => R): R {
  try {
    return parse();
  } catch (err) {
    const code = typeof err === "object" && err !== null && "code" in err ? String((err as { code: unknown }).code) : "";
    if (code.startsWith("ERR_PARSE_ARGS")) {
      // Node's messages sometimes carry a hint on a second line ("To specify a positional…").
      throw new UsageError(`${(err as Error).message.split("\n")[0]!.replace(/\. *$/, "")} (try --help)`);
    }
    throw err;
  }
}

/** An integer option in [min, max], or `fallback` when absent. */
export function intOption(value: string | undefined, name: string, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  const n = /^-?\d+$/.test(value.trim()) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) throw new UsageError(`--${name} must be an integer in [${min}, ${max}], got '${value}'`);
  return n;
}

/** Exactly one positional argument, named `what` in the error. */
export function onePositional(positionals: string[], what: string): string {
  if (positionals.length === 0) throw new UsageError(`missing ${what} (try --help)`);
  if (positionals.length > 1) throw new UsageError(`expected one ${what}, got ${positionals.length}: ${positionals.join(" ")}`);
  return positionals[0]!;
}
