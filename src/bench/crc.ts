/**
 * The CRC-32C a bench run uses, for pagelog and the references alike: pagelog's own choice
 * (`--crc auto`, the default: the native one from its crossover length up when `@node-rs/crc32`
 * is installed and passes its self-test, the table otherwise), the pure-JS table at every length
 * (`--crc js`), or the native one or a usage error (`--crc native`). The parent picks it to check
 * it and print it before any row runs; each child picks it again for its own row.
 */
import { type Crc32c, crc32c, crc32cInUse } from "../format/index.js";
import { installNativeCrc32c } from "../format/crc32c-accelerator.js";
import { setNativeCrc32c } from "../format/crc32c.js";
import { loadNativeCrc32c } from "../storage/fs-native-crc32c.js";
import { UsageError } from "../text/usage-error.js";

export type CrcName = "auto" | "js" | "native";

export interface BenchCrc {
  readonly crc: Crc32c;
  /** For the header: which CRC-32C ran. */
  readonly label: string;
}

/** Sets pagelog's default CRC-32C as `name` asks, and returns it with its label. */
export function loadCrc(name: CrcName): BenchCrc {
  // No process warning: a fallback is in the header's label instead.
  installNativeCrc32c(
    () => loadNativeCrc32c(),
    () => {},
  );
  if (name === "js") setNativeCrc32c(undefined, "--crc js");
  const inUse = crc32cInUse();
  if (name === "native" && inUse.kind !== "native")
    throw new UsageError(`--crc native: no native CRC-32C: ${inUse.fallback ?? "not installed"}`);
  const label =
    inUse.kind === "native"
      ? `native (${inUse.label}) from ${inUse.fromBytes} B, the pure-JS table below`
      : `js (${inUse.label}${inUse.fallback === undefined ? "" : `: ${inUse.fallback}`})`;
  return { crc: crc32c, label };
}
