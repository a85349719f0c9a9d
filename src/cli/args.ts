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
    const code =
      typeof err === "object" && err !== null && "code" in err ? String((err as { code: unknown }).code) : "";
    if (code.startsWith("ERR_PARSE_ARGS")) {
      // Node's messages sometimes carry a hint on a second line ("To specify a positional…").
      throw new UsageError(`${(err as Error).message.split("\n")[0]!.replace(/\. *$/, "")} (try --help)`);
    }
    throw err;
  }
}

/**
 * `--runs -1`: parseArgs takes a value that starts with a dash for a forgotten value and calls it
 * "ambiguous". For an option that takes a value, a following argument that looks like a negative
 * number is joined to it (`--runs=-1`), so the command's own check can say what is wrong with it.
 */
export function joinNegativeNumbers(
  args: readonly string[],
  options: Readonly<Record<string, { type: "string" | "boolean"; short?: string }>>,
): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "--") {
      out.push(...args.slice(i));
      break;
    }
    const next = args[i + 1];
    const name = arg.startsWith("--") ? arg.slice(2) : undefined;
    if (
      name !== undefined &&
      !name.includes("=") &&
      options[name]?.type === "string" &&
      next !== undefined &&
      /^-\.?\d/.test(next)
    ) {
      out.push(`${arg}=${next}`);
      i++;
      continue;
    }
    out.push(arg);
  }
  return out;
}

/** What an integer option must be, in words: "a positive integer", "an integer in [16, 65536]". */
function integerRange(min: number, max: number): string {
  if (max === Number.MAX_SAFE_INTEGER && min === 1) return "a positive integer";
  if (max === Number.MAX_SAFE_INTEGER && min === 0) return "a non-negative integer";
  return `an integer in [${min}, ${max}]`;
}

/** An integer option in [min, max], or `fallback` when absent. */
export function intOption(value: string | undefined, name: string, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  const n = /^-?\d+$/.test(value.trim()) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max)
    throw new UsageError(`--${name} must be ${integerRange(min, max)}, got '${value}'`);
  return n;
}

/** Exactly one positional argument, named `what` in the error. */
export function onePositional(positionals: string[], what: string): string {
  if (positionals.length === 0) throw new UsageError(`missing ${what} (try --help)`);
  if (positionals.length > 1)
    throw new UsageError(`expected one ${what}, got ${positionals.length}: ${positionals.join(" ")}`);
  return positionals[0]!;
}
