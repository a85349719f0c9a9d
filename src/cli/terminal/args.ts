/**
 * Argument parsing shared by the commands: `node:util.parseArgs`, with its errors turned into
 * one-line `UsageError`s (exit 2), and integer options checked the same way everywhere.
 */
import { type ParseArgsConfig, parseArgs } from "node:util";
import { UsageError } from "./io.js";

type Options = NonNullable<ParseArgsConfig["options"]>;

/** A value that starts with a dash but is meant as one: a negative number (`--runs -1`). */
const NUMBER_LIKE = /^-(\d|\.\d|Infinity$)/;

/**
 * `node:util.parseArgs` for a command, with pagelog's own one-line messages (exit 2) instead of
 * Node's (`To specify a positional argument starting with a '-', place it at the end…`,
 * `argument is ambiguous`): the arguments are read leniently first and checked here, so every
 * command words the same mistake the same way. A value that looks like a negative number is
 * taken as the option's value (`--timeout -1`), for the option's own check to judge.
 */
export function parseCommandLine<T extends Options>(
  args: string[],
  options: T,
  allowPositionals: boolean,
): ReturnType<typeof parseArgs<{ args: string[]; options: T; strict: true; allowPositionals: true }>> {
  const { tokens } = parseArgs({ args, options, strict: false, allowPositionals: true, tokens: true });
  const safe: string[] = [];
  const positionals: string[] = [];
  for (const token of tokens) {
    if (token.kind === "option-terminator") continue;
    if (token.kind === "positional") {
      if (!allowPositionals)
        throw new UsageError(`unexpected argument '${token.value}': this command takes only options (try --help)`);
      positionals.push(token.value);
      continue;
    }
    const option = options[token.name];
    const shown = token.rawName;
    if (option === undefined) {
      const hint = token.rawName.startsWith("--") ? "" : "; a path that starts with '-' goes after --";
      throw new UsageError(`unknown option '${shown}' (try --help${hint})`);
    }
    if (option.type === "boolean") {
      if (token.value !== undefined) throw new UsageError(`${shown} takes no value, got '${shown}=${token.value}'`);
      safe.push(`--${token.name}`);
      continue;
    }
    const value = token.value;
    if (value === undefined) throw new UsageError(`${shown} needs a value (try --help)`);
    if (token.inlineValue === false && value.startsWith("-") && !NUMBER_LIKE.test(value))
      throw new UsageError(
        `${shown} needs a value, but is followed by the option '${value}' (write ${shown}=${value} if that is the value)`,
      );
    safe.push(`--${token.name}=${value}`);
  }
  safe.push("--", ...positionals);
  return parsing(() => parseArgs({ args: safe, options, strict: true, allowPositionals: true }));
}

/** Runs a `parseArgs` call, turning its `ERR_PARSE_ARGS_*` errors into a one-line UsageError. */
function parsing<R>(parse: () => R): R {
  try {
    return parse();
  } catch (err) {
    const code = typeof err === "object" && err !== null && "code" in err ? String(err.code) : "";
    if (code.startsWith("ERR_PARSE_ARGS")) {
      // Node's messages carry hints after the first sentence ("To specify a positional…").
      throw new UsageError(`${(err as Error).message.split(/\n|\. /)[0]!.replace(/\. *$/, "")} (try --help)`);
    }
    throw err;
  }
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

/** A log directory and a partition or topic (`tail`, `mirror`): exactly two positionals. */
export function dirAndTarget(positionals: string[]): [dir: string, target: string] {
  if (positionals.length !== 2)
    throw new UsageError(
      `expected a log directory and a partition or topic, got ${positionals.length === 0 ? "none" : positionals.join(" ")} (try --help)`,
    );
  return positionals as [string, string];
}
