/**
 * Deliberately broken logs, for one purpose: proving that the crash suite catches each classic
 * durability bug (`test/property/broken-variants.test.ts`, `pagelog fuzz --broken <name>`).
 * Switched on per LogDir through an option the docs do not list. Every one of them loses
 * acknowledged data: never set one in real use.
 */
export const BROKEN_VARIANTS = [
  /** Flush writes the checkpoint (naming the new recovery point) before fsyncing the data. */
  "checkpoint-before-fsync",
  /** Flush never fsyncs the partition directory, so a rolled segment's name may not be durable. */
  "no-dir-fsync-after-roll",
  /** Open removes the clean-shutdown marker without fsyncing the directory. */
  "marker-not-durably-removed",
  /** Recovery truncates the torn tail without fsyncing the truncation before appends. */
  "recovery-truncation-not-durable",
  /** Recovery accepts batches without checking their CRC-32C. */
  "skip-crc-in-recovery",
  /** Flush ignores a failed fsync and advances the recovery point anyway. */
  "ignore-fsync-failure",
] as const;

export type BrokenVariant = (typeof BROKEN_VARIANTS)[number];

export function isBrokenVariant(value: unknown): value is BrokenVariant {
  return typeof value === "string" && (BROKEN_VARIANTS as readonly string[]).includes(value);
}
