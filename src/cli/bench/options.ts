/**
 * `pagelog bench`'s options, checked: a bad value is a one-line `UsageError` (exit 2). Also
 * the CRC-32C to run (`--crc native` loads `@node-rs/crc32` from the working directory) and the
 * default tmpfs directory.
 */
import { accessSync, constants, statSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { type Crc32c, crc32c } from "../../format/index.js";
import { intOption } from "../args.js";
import { UsageError } from "../io.js";
import { ROWS, type RowSpec, rowNamed } from "./rows.js";

export const OPTIONS = {
  dir: { type: "string" },
  tmpfs: { type: "string" },
  repeats: { type: "string" },
  scale: { type: "string" },
  rows: { type: "string" },
  json: { type: "boolean" },
  crc: { type: "string" },
  "in-process": { type: "boolean" },
  // Internal: how the parent runs one row (or builds one fixture) in a child process.
  "child-row": { type: "string" },
  "child-fixture": { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

export type Values = {
  [K in keyof typeof OPTIONS]?: (typeof OPTIONS)[K]["type"] extends "boolean" ? boolean : string;
};

export interface BenchOptions {
  readonly dir: string;
  readonly tmpfs: string;
  readonly repeats: number;
  readonly scale: number;
  readonly rows: readonly RowSpec[];
  readonly json: boolean;
  readonly crcName: "js" | "native";
  /** For the header: which CRC-32C ran. */
  readonly crcLabel: string;
  readonly crc: Crc32c;
  readonly inProcess: boolean;
}

function directory(value: string, name: string): string {
  const path = resolve(value);
  let ok = false;
  try {
    ok = statSync(path).isDirectory();
  } catch {
    ok = false;
  }
  if (!ok) throw new UsageError(`--${name} must be an existing directory, got '${value}'`);
  return path;
}

/** `/dev/shm` where it exists and is writable; otherwise undefined (the rows use `--dir`). */
function defaultTmpfs(): string | undefined {
  try {
    if (!statSync("/dev/shm").isDirectory()) return undefined;
    accessSync("/dev/shm", constants.W_OK);
    return "/dev/shm";
  } catch {
    return undefined;
  }
}

function scaleOption(value: string | undefined): number {
  if (value === undefined) return 1;
  const n = /^\s*(\d+\.?\d*|\.\d+)(e[-+]?\d+)?\s*$/i.test(value) ? Number(value) : Number.NaN;
  if (!(n > 0 && n <= 1000)) throw new UsageError(`--scale must be a number in (0, 1000], got '${value}'`);
  return n;
}

function rowsOption(value: string | undefined): RowSpec[] {
  if (value === undefined) return [...ROWS];
  const names = [...new Set(value.split(",").map((s) => s.trim()))].filter((s) => s !== "");
  if (names.length === 0) throw new UsageError("--rows names no row (try --help)");
  return names.map((name) => {
    const spec = rowNamed(name);
    if (spec === undefined)
      throw new UsageError(`--rows: unknown row '${name}' (rows: ${ROWS.map((r) => r.name).join(", ")})`);
    return spec;
  });
}

/** `@node-rs/crc32`'s crc32c, resolved from the working directory (pagelog does not depend on it). */
function nativeCrc(): { crc: Crc32c; label: string } {
  const require = createRequire(join(process.cwd(), "x.js"));
  let mod: { crc32c?: unknown };
  try {
    mod = require("@node-rs/crc32") as { crc32c?: unknown };
  } catch {
    throw new UsageError(
      `--crc native: @node-rs/crc32 is not installed here (${process.cwd()}): npm install @node-rs/crc32`,
    );
  }
  if (typeof mod.crc32c !== "function")
    throw new UsageError("--crc native: @node-rs/crc32 exports no crc32c function: npm install @node-rs/crc32");
  const fn = mod.crc32c as (input: Buffer, initial?: number) => number;
  let version = "";
  try {
    version = ` ${(require("@node-rs/crc32/package.json") as { version: string }).version}`;
  } catch {
    // An exports map may hide package.json: the name is enough.
  }
  // A Buffer view of the same memory (no copy): native bindings take Buffers.
  const crc: Crc32c = (bytes) =>
    fn(Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)) >>> 0;
  if (crc(new TextEncoder().encode("123456789")) !== 0xe3069283)
    throw new UsageError("--crc native: @node-rs/crc32's crc32c fails the CRC-32C check value");
  return { crc, label: `native (@node-rs/crc32${version})` };
}

export function benchOptions(values: Values): BenchOptions {
  const repeats = intOption(values.repeats, "repeats", 5, 1, 1000);
  const scale = scaleOption(values.scale);
  const rows = rowsOption(values.rows);
  const crcName = values.crc ?? "js";
  if (crcName !== "js" && crcName !== "native") throw new UsageError(`--crc must be js or native, got '${crcName}'`);
  const dir = directory(values.dir ?? tmpdir(), "dir");
  const tmpfs = values.tmpfs === undefined ? (defaultTmpfs() ?? dir) : directory(values.tmpfs, "tmpfs");
  const { crc, label } =
    crcName === "native" ? nativeCrc() : { crc: crc32c, label: "js (crc-32, pure JS: pagelog's default)" };
  return {
    dir,
    tmpfs,
    repeats,
    scale,
    rows,
    json: values.json === true,
    crcName,
    crcLabel: label,
    crc,
    inProcess: values["in-process"] === true,
  };
}

/** The arguments a child process gets to run one row (or fixture) of this run, in its directories. */
export function childArgs(options: BenchOptions, dirs: { disk: string; tmpfs: string }): string[] {
  return [
    "--dir",
    dirs.disk,
    "--tmpfs",
    dirs.tmpfs,
    "--repeats",
    String(options.repeats),
    "--scale",
    String(options.scale),
    "--crc",
    options.crcName,
  ];
}
