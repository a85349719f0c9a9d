/**
 * The CRC-32C a bench run uses: pagelog's bundled one, or `@node-rs/crc32`'s (`--crc native`),
 * loaded from the working directory (pagelog does not depend on it). The parent loads it to
 * check it before any row runs; each child loads it again for its own row.
 */
import { createRequire } from "node:module";
import { join } from "node:path";
import { type Crc32c, crc32c } from "../format/index.js";
import { UsageError } from "../text/usage-error.js";

export type CrcName = "js" | "native";

export interface BenchCrc {
  readonly crc: Crc32c;
  /** For the header: which CRC-32C ran. */
  readonly label: string;
}

export function loadCrc(name: CrcName): BenchCrc {
  return name === "native" ? nativeCrc() : { crc: crc32c, label: "js (crc-32, pure JS: pagelog's default)" };
}

/** `@node-rs/crc32`'s crc32c, resolved from the working directory. */
function nativeCrc(): BenchCrc {
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
