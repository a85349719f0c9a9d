/*
 * `cleanupPolicy` and `minCleanableDirtyRatio`: the forms Kafka's `cleanup.policy` takes (a
 * comma-separated list, or a list), checked and normalized to one string per meaning.
 */

/** What `cleanupPolicy` may be given as: Kafka's names, alone or both (any order). */
export type CleanupPolicyInput =
  "delete" | "compact" | "compact,delete" | "delete,compact" | readonly ("delete" | "compact")[];

/** `cleanupPolicy` after resolution: `"delete"`, `"compact"` or both, `"compact,delete"`. */
export type CleanupPolicy = "delete" | "compact" | "compact,delete";

const KNOWN = new Set(["delete", "compact"]);

/** Resolves `cleanupPolicy`; anything but Kafka's two names (no empty list, no repeats) is a TypeError. */
export function cleanupPolicy(given: unknown): CleanupPolicy {
  if (given === undefined) return "delete";
  const bad = (): TypeError =>
    new TypeError(
      `option cleanupPolicy must be "delete", "compact", "compact,delete" or a list of "delete" and "compact", got ${describe(given)}`,
    );
  let parts: unknown[];
  if (typeof given === "string") parts = given.split(",").map((p) => p.trim());
  else if (Array.isArray(given)) parts = [...(given as unknown[])];
  else throw bad();
  if (parts.length === 0 || parts.length > 2) throw bad();
  if (!parts.every((p) => typeof p === "string" && KNOWN.has(p))) throw bad();
  if (new Set(parts).size !== parts.length) throw bad();
  if (parts.length === 2) return "compact,delete";
  return parts[0] as "delete" | "compact";
}

/** Resolves `minCleanableDirtyRatio`: a number in [0, 1] (Kafka's range). */
export function dirtyRatio(given: unknown): number {
  const value = given === undefined ? 0.5 : given;
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0 || value > 1)
    throw new TypeError(`option minCleanableDirtyRatio must be a number in [0, 1], got ${describe(value)}`);
  return value;
}

/** True if the policy has the log cleaner run (`"compact"` in it). */
export function compacts(policy: CleanupPolicy): boolean {
  return policy !== "delete";
}

/** True if retention deletes old segments (`"delete"` in it). */
function deletes(policy: CleanupPolicy): boolean {
  return policy !== "compact";
}

/**
 * Whether retention can delete anything under these options: a limit is set (`retentionBytes` or
 * `retentionMs`; both are off by default) and the cleanup policy deletes (as Kafka's). When not,
 * retention answers 0 without looking, so its part (write/door-retention.ts) need not load.
 */
export function retains(o: { retentionBytes: number; retentionMs: number; cleanupPolicy: CleanupPolicy }): boolean {
  return (o.retentionBytes !== -1 || o.retentionMs !== -1) && deletes(o.cleanupPolicy);
}

function describe(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map((v) => describe(v)).join(", ")}]`;
  return value === null ? "null" : typeof value === "object" ? "an object" : String(value);
}
