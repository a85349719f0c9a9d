/**
 * The resolvers of the log options a plain log is never given: `cleanupPolicy`,
 * `minCleanableDirtyRatio`, `crc32c` (with its known-answer check), `clock` and `policies`. A lazy
 * part (door-rare-options.ts): `LogDir` loads it when options give one of them
 * (log-option-resolvers.ts); `resolveLogOptions` (resolve-log-options.ts) imports it.
 */
import { checkCrc32c } from "../../format/checked/check-crc32c.js";
import { resolvePolicies } from "../policies/resolve-policies.js";
import { cleanupPolicy, dirtyRatio } from "./cleanup-policy.js";
import { checkedClock, type Clock, systemClock } from "./log-clock.js";
import type { OptionResolvers } from "../../options.js";
import type { LogOptions, ResolvedLogOptions } from "./log-options.js";

/** The options a plain log is never given: their resolvers are here. */
export type RareOption = "cleanupPolicy" | "minCleanableDirtyRatio" | "crc32c" | "clock" | "policies";
/** The resolvers of the rare options. */
export type RareResolvers = Pick<OptionResolvers<LogOptions, ResolvedLogOptions>, RareOption>;

export const RARE_RESOLVERS: RareResolvers = {
  cleanupPolicy,
  minCleanableDirtyRatio: dirtyRatio,
  crc32c: (crc) => checkCrc32c(crc, "option crc32c"),
  clock: checkClock,
  policies: (policies) => resolvePolicies(policies),
};

function checkClock(clock: unknown): Clock {
  if (clock === undefined) return systemClock;
  if (typeof clock !== "object" || clock === null || typeof (clock as Partial<Clock>).now !== "function")
    throw new TypeError("option clock must be an object with a now() method");
  return checkedClock(clock as Clock);
}
