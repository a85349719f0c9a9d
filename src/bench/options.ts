/**
 * The bench's options object, read with the shared resolver (src/options.ts): an unknown key is a
 * TypeError naming it and the known ones, a bad value a TypeError or RangeError naming the option,
 * and the result is fully specified (`Required<BenchOptions>`). `pagelog bench` turns its flags
 * into this object (src/cli/bench.ts); a child process gets the resolved one as JSON.
 */
import { statSync, accessSync, constants } from "node:fs";
import { tmpdir } from "node:os";
import { resolve } from "node:path";
import { resolveOptions, type OptionResolvers } from "../options.js";
import type { CrcName } from "./crc.js";
import { expandRowNames, rowChoices, ROWS } from "./rows/rows.js";

export interface BenchOptions {
  /** Where the real-disk rows run. Default: the OS temp directory. */
  readonly dir?: string;
  /** Where the CPU-bound rows run. Default: `/dev/shm` if writable, else `dir`. */
  readonly tmpfs?: string;
  /** Repeats of each measurement, 1 to 1000. Default 5. */
  readonly repeats?: number;
  /** Multiplies every size and count, in (0, 1000]. Default 1; below 1 the goals are not judged. */
  readonly scale?: number;
  /** The rows to run, by name (or group: `kafka`), in this order. Default: every row. */
  readonly rows?: readonly string[];
  /** Print one JSON document instead of the table. Default false. */
  readonly json?: boolean;
  /** Which CRC-32C pagelog and the references use. Default "auto": pagelog's own choice. */
  readonly crc?: CrcName;
  /** Run the rows in this process (no peak RSS per row). Default false. */
  readonly inProcess?: boolean;
}

export type ResolvedBenchOptions = Required<BenchOptions>;

const WHAT = "bench options";

function directory(name: string, fallback: () => string) {
  return (value: unknown): string => {
    if (value === undefined) return fallback();
    if (typeof value !== "string" || value === "") throw new TypeError(`${WHAT}: ${name} must be a path`);
    if (!isDirectory(value)) throw new RangeError(`${WHAT}: ${name} must be an existing directory, got '${value}'`);
    return resolve(value);
  };
}

export function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** `/dev/shm` where it exists and is writable; otherwise undefined (the rows use `dir`). */
function defaultTmpfs(): string | undefined {
  try {
    if (!statSync("/dev/shm").isDirectory()) return undefined;
    accessSync("/dev/shm", constants.W_OK);
    return "/dev/shm";
  } catch {
    return undefined;
  }
}

function number(name: string, fallback: number, ok: (n: number) => boolean, range: string) {
  return (value: unknown): number => {
    if (value === undefined) return fallback;
    if (typeof value !== "number" || !ok(value))
      throw new RangeError(`${WHAT}: ${name} must be ${range}, got ${String(value)}`);
    return value;
  };
}

function flag(name: string) {
  return (value: unknown): boolean => {
    if (value === undefined) return false;
    if (typeof value !== "boolean") throw new TypeError(`${WHAT}: ${name} must be a boolean, got ${String(value)}`);
    return value;
  };
}

/** Resolves a bench's options; `dir` comes first, as `tmpfs` falls back to it. */
export function resolveBenchOptions(options?: BenchOptions): ResolvedBenchOptions {
  let dir = "";
  const resolvers: OptionResolvers<BenchOptions> = {
    dir: (value) => (dir = directory("dir", () => tmpdir())(value)),
    tmpfs: (value) => directory("tmpfs", () => defaultTmpfs() ?? dir)(value),
    repeats: number("repeats", 5, (n) => Number.isInteger(n) && n >= 1 && n <= 1000, "an integer in [1, 1000]"),
    scale: number("scale", 1, (n) => n > 0 && n <= 1000, "a number in (0, 1000]"),
    rows: (value) => {
      if (value === undefined) return ROWS.map((r) => r.name);
      if (!Array.isArray(value) || value.length === 0 || value.some((n) => typeof n !== "string"))
        throw new TypeError(`${WHAT}: rows must be a non-empty array of row names`);
      const { rows, unknown } = expandRowNames(value as string[]);
      if (unknown !== undefined) throw new RangeError(`${WHAT}: unknown row '${unknown}' (rows: ${rowChoices()})`);
      return rows;
    },
    json: flag("json"),
    crc: (value) => {
      if (value === undefined) return "auto";
      if (value !== "auto" && value !== "js" && value !== "native")
        throw new RangeError(`${WHAT}: crc must be "auto", "js" or "native", got ${String(value)}`);
      return value;
    },
    inProcess: flag("inProcess"),
  };
  return resolveOptions(options, WHAT, resolvers);
}
