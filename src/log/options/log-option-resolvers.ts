/**
 * How `LogOptions` are resolved: the resolvers of the options any log may be given (sizes,
 * intervals, limits) here, loaded with `LogDir`; those of the options a plain log is never given
 * (`cleanupPolicy`, `minCleanableDirtyRatio`, `crc32c`, `clock`, `policies`: rare-options.ts) a
 * lazy part, loaded through door-rare-options.ts by `LogDir.open` and `dir.log()` (both already
 * asynchronous) only when the options give one. Loaded once, they resolve every later log's.
 * Either way each option is resolved by the same function, in the same order, so the errors
 * are the same; `resolveLogOptions` (resolve-log-options.ts) resolves with every resolver at hand,
 * synchronously.
 */
import { BATCH_HEADER_SIZE, MIN_RECORD_SIZE } from "../../format/batch-layout.js";
import { type OptionResolvers, resolveOptions } from "../../options.js";
import { loadRareOptions } from "./door-rare-options.js";
import { systemClock } from "./log-clock.js";
import type { LogOptions, ResolvedLogOptions } from "./log-options.js";
import type { RareOption, RareResolvers } from "./rare-options.js";

const MAX_INT32 = 0x7fffffff;
/** The longest delay a timer takes (setTimeout's int32 limit, about 24.8 days). */
export const MAX_TIMER_MS = MAX_INT32;

const LOG_DEFAULTS = {
  segmentBytes: 1 << 30,
  segmentMs: 7 * 24 * 60 * 60 * 1000,
  indexIntervalBytes: 4096,
  maxIndexBytes: 10 * 1024 * 1024,
  maxBatchBytes: 1048588,
  indexCacheBytes: 8 * 1024 * 1024,
  flushMessages: -1,
  flushMs: -1,
  retentionBytes: -1,
  retentionMs: -1,
  retentionCheckIntervalMs: 5 * 60 * 1000,
  deleteRetentionMs: 24 * 60 * 60 * 1000,
  minCompactionLagMs: 0,
  maxCompactionLagMs: -1,
  cleanerDedupeBufferBytes: 128 * 1024 * 1024,
  backgroundCleaning: true,
} as const;

function integer(name: keyof typeof LOG_DEFAULTS, min: number, max: number, offAllowed = false) {
  return (given: unknown): number => {
    // undefined is "use the default"; null, NaN, a string or a fraction is a mistake.
    const value: unknown = given === undefined ? LOG_DEFAULTS[name] : given;
    if (
      typeof value !== "number" ||
      !Number.isSafeInteger(value) ||
      ((value < min || value > max) && !(offAllowed && value === -1))
    ) {
      throw new TypeError(
        `option ${name} must be an integer in [${min}, ${max}]${offAllowed ? " or -1 (off)" : ""}, got ${String(value)}`,
      );
    }
    return value;
  };
}

/**
 * The options a plain log is never given, whose resolvers are a lazy part (rare-options.ts), with
 * their defaults: what they resolve to while their resolvers are not loaded, for options that
 * give none (`rareOptionsFor` loads them before any that gives one is resolved).
 */
const RARE_DEFAULTS = {
  cleanupPolicy: "delete",
  minCleanableDirtyRatio: 0.5,
  crc32c: undefined,
  clock: systemClock,
  policies: undefined,
} as const satisfies Record<RareOption, unknown>;

/**
 * A rare option's default while its resolver is not loaded. A value here means the options gave
 * none when `rareOptionsFor` looked and one now, in the same call: only an object whose getters
 * (or a Proxy) answer differently from one read to the next does that. A bad argument, not a bug.
 */
const defaultOnly =
  <K extends RareOption>(option: K) =>
  (value: unknown): (typeof RARE_DEFAULTS)[K] => {
    if (value !== undefined)
      throw new TypeError(`option ${option} changed while the options were read (give a plain object)`);
    return RARE_DEFAULTS[option];
  };

/**
 * One resolver per option, the rare ones' defaults only: the keys here are every option a
 * LogOptions may hold, in the order they are resolved (an object spread over it keeps it).
 */
const RESOLVERS: OptionResolvers<LogOptions, ResolvedLogOptions> = {
  // A segment must hold at least one header-sized batch; positions are int32s.
  segmentBytes: integer("segmentBytes", 61, MAX_INT32),
  segmentMs: integer("segmentMs", 1, Number.MAX_SAFE_INTEGER),
  indexIntervalBytes: integer("indexIntervalBytes", 0, MAX_INT32),
  // Room for at least one entry of each index (12 bytes is the larger).
  maxIndexBytes: integer("maxIndexBytes", 12, MAX_INT32),
  // The smallest batch an append can write: the header and one record with nothing in it.
  maxBatchBytes: integer("maxBatchBytes", BATCH_HEADER_SIZE + MIN_RECORD_SIZE, MAX_INT32),
  indexCacheBytes: integer("indexCacheBytes", 0, Number.MAX_SAFE_INTEGER),
  flushMessages: integer("flushMessages", 1, Number.MAX_SAFE_INTEGER, true),
  flushMs: integer("flushMs", 0, Number.MAX_SAFE_INTEGER, true),
  retentionBytes: integer("retentionBytes", 0, Number.MAX_SAFE_INTEGER, true),
  retentionMs: integer("retentionMs", 0, Number.MAX_SAFE_INTEGER, true),
  // A timer's delay: setTimeout fires at once past its int32 limit.
  retentionCheckIntervalMs: integer("retentionCheckIntervalMs", 1, MAX_TIMER_MS, true),
  cleanupPolicy: defaultOnly("cleanupPolicy"),
  minCleanableDirtyRatio: defaultOnly("minCleanableDirtyRatio"),
  deleteRetentionMs: integer("deleteRetentionMs", 0, Number.MAX_SAFE_INTEGER),
  minCompactionLagMs: integer("minCompactionLagMs", 0, Number.MAX_SAFE_INTEGER),
  maxCompactionLagMs: integer("maxCompactionLagMs", 1, Number.MAX_SAFE_INTEGER, true),
  cleanerDedupeBufferBytes: integer("cleanerDedupeBufferBytes", 1, Number.MAX_SAFE_INTEGER),
  backgroundCleaning: (value) => {
    if (value !== undefined && typeof value !== "boolean")
      throw new TypeError(`option backgroundCleaning must be a boolean, got ${typeof value}`);
    return value !== false;
  },
  crc32c: defaultOnly("crc32c"),
  clock: defaultOnly("clock"),
  policies: defaultOnly("policies"),
};

/** The resolvers in use: the rare options' defaults until theirs load, every one after. */
let loaded: OptionResolvers<LogOptions, ResolvedLogOptions> | undefined;

/**
 * Validates `options` and fills in defaults with `rare` for the rare options. Bad values are
 * TypeErrors naming the option; an unknown key is one naming it and the known ones.
 */
export function resolveLogOptionsWith(options: LogOptions, what: string, rare: RareResolvers): ResolvedLogOptions {
  return checkLags(resolveOptions(options, what, { ...RESOLVERS, ...rare }));
}

/**
 * `LogDir`'s resolution (`LogDir.open`'s `log` option, `dir.log()`): with the resolvers loaded
 * so far, which `rareOptionsFor` made every one these options need.
 */
export function resolveLoadedLogOptions(options: LogOptions = {}, what = "options"): ResolvedLogOptions {
  return checkLags(resolveOptions(options, what, loaded ?? RESOLVERS));
}

/** As Kafka's LogConfig: the most a record may wait for compaction is no less than the least. */
function checkLags(resolved: ResolvedLogOptions): ResolvedLogOptions {
  if (resolved.maxCompactionLagMs !== -1 && resolved.maxCompactionLagMs < resolved.minCompactionLagMs)
    throw new TypeError(
      `option maxCompactionLagMs (${resolved.maxCompactionLagMs}) must be at least minCompactionLagMs (${resolved.minCompactionLagMs})`,
    );
  return resolved;
}

/**
 * Loads the rare options' resolvers (a lazy part, door-rare-options.ts) when one of `given` (each
 * a LogOptions, or anything else: only an object's keys count) gives a rare option, before it is
 * resolved; undefined when there is nothing to wait for (none given, or loaded already). Called
 * outside any log's failure guard: a chunk that fails to load fails that call, the next loads it.
 */
export function rareOptionsFor(...given: unknown[]): Promise<void> | undefined {
  const gives = (options: unknown) =>
    typeof options === "object" &&
    options !== null &&
    Object.keys(RARE_DEFAULTS).some((key) => (options as Record<string, unknown>)[key] !== undefined);
  if (loaded !== undefined || !given.some(gives)) return undefined;
  return loadRareOptions().then((part) => {
    loaded = { ...RESOLVERS, ...part.RARE_RESOLVERS };
  });
}
