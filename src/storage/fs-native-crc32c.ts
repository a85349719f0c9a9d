/*
 * The Node half of pagelog's native CRC-32C: finding `@node-rs/crc32` (an optional dependency:
 * prebuilt per platform, so its install needs no compiler) beside pagelog, and the one warning
 * when pagelog runs its pure-JS table instead. Only the Node entry and the CLI import this file,
 * so the native module never enters a browser bundle. The self-test and the switch are the
 * format layer's (format/crc32c-accelerator.ts).
 */
import { createRequire } from "node:module";

/** The optional dependency that provides the native CRC-32C. */
export const NATIVE_CRC32C_PACKAGE = "@node-rs/crc32";

/** The `code` of the process warning pagelog emits, once, when it falls back to the pure-JS CRC-32C. */
export const CRC32C_FALLBACK_WARNING = "PAGELOG_CRC32C_FALLBACK";

/** `PAGELOG_CRC32C=js` in the environment: the pure-JS table, with no warning. */
const OPT_OUT_VARIABLE = "PAGELOG_CRC32C";

type RequireFn = (id: string) => unknown;

// Resolved from where pagelog is installed, not from the working directory. The CJS build gets
// `import.meta.url` from tsup's shim (tsup.config.ts: `shims`). Literal specifiers, so that
// readers (and the architecture test) see what is loaded.
const require = createRequire(import.meta.url);
const requireFromPagelog: RequireFn = (id) =>
  id === NATIVE_CRC32C_PACKAGE ? require("@node-rs/crc32") : require("@node-rs/crc32/package.json");

/** Whether `err` says `name` itself cannot be found (not one of its own imports). */
function isMissing(err: unknown, name: string): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  if (code !== "MODULE_NOT_FOUND" && code !== "ERR_MODULE_NOT_FOUND") return false;
  return String((err as { message?: unknown }).message).includes(`'${name}'`);
}

const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/**
 * The native CRC-32C (unchecked: the caller self-tests it), or why there is none. `load` is the
 * `require` to find the package with (tests pass stand-in modules).
 */
export function loadNativeCrc32c(
  load: RequireFn = requireFromPagelog,
): { crc: (bytes: Uint8Array) => number; label: string } | { none: string; quiet?: boolean } {
  if (process.env[OPT_OUT_VARIABLE] === "js") return { none: `${OPT_OUT_VARIABLE}=js`, quiet: true };
  let module: { crc32c?: unknown } | undefined;
  try {
    module = load(NATIVE_CRC32C_PACKAGE) as { crc32c?: unknown } | undefined;
  } catch (err) {
    return {
      none: isMissing(err, NATIVE_CRC32C_PACKAGE)
        ? `${NATIVE_CRC32C_PACKAGE} is not installed (an optional dependency of pagelog; no prebuilt binary for ${process.platform}-${process.arch}, or installed without optional dependencies)`
        : `${NATIVE_CRC32C_PACKAGE} failed to load: ${messageOf(err)}`,
    };
  }
  const fn = module?.crc32c;
  if (typeof fn !== "function") return { none: `${NATIVE_CRC32C_PACKAGE} exports no crc32c function` };
  let version = "";
  try {
    version = ` ${(load(`${NATIVE_CRC32C_PACKAGE}/package.json`) as { version: string }).version}`;
  } catch {
    // An exports map may hide package.json: the name is enough.
  }
  // napi-rs takes any Uint8Array view (no Buffer copy); its result is read as unsigned.
  const native = fn as (bytes: Uint8Array) => number;
  return { crc: (bytes) => native(bytes) >>> 0, label: `${NATIVE_CRC32C_PACKAGE}${version}` };
}

// Once per process, though the ESM and CJS builds (and the CLI) each carry this module.
const WARNED = Symbol.for("pagelog.crc32cFallbackWarned");

/** Says once per process, as a warning with code {@link CRC32C_FALLBACK_WARNING}, why the pure-JS CRC-32C runs. */
export function warnCrc32cFallback(reason: string): void {
  const flags = globalThis as { [WARNED]?: boolean };
  if (flags[WARNED] === true) return;
  flags[WARNED] = true;
  process.emitWarning(
    `pagelog uses its pure-JS CRC-32C (slower on large batches, just as safe): ${reason}. ` +
      `PAGELOG_CRC32C=js asks for it without this warning.`,
    { code: CRC32C_FALLBACK_WARNING },
  );
}
