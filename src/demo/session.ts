/**
 * The demo's broker: pagelog's real `LogDir` and `Log` on a `SimStorage` with small pages, driven
 * one step at a time (produce, cut the power, restart, write back, flush), with everything the
 * picture needs read back from the simulator (which bytes are durable, cached only or torn).
 *
 * "Acknowledged" means the produce step finished: `log.append` resolved (and, with a flush
 * policy, the flush it triggered). The session remembers the log end offset at the last
 * acknowledgement, so after a restart it can say how many acknowledged records recovery lost.
 */
import { LogDir } from "../log/log-dir.js";
import type { Log, LogRecovery } from "../log/log.js";
import { offsetName, parseSegmentFileName } from "../segment/segment-names.js";
import { SimStorage } from "../storage/sim-storage.js";
import { Prng } from "../storage/sim/prng.js";
import { baseOffsetOf, type BatchMark, readFile, validPrefix } from "./segment-bytes.js";
import { plural } from "../text/plural.js";
import type { CoursePolicies } from "../policies/policy-types.js";
import { brokenOutcome, type PolicyBreak, policyBreakOf, runningOn } from "./policy-outcome.js";

/** The partition the demo writes to. */
const PARTITION = "sensors-0";
/** "Flush every" choices, in the order `f` cycles through them: 0 is off (Kafka's default). */
export const FLUSH_CHOICES = [0, 1, 5] as const;
/** Timestamps start here and advance a second per clock read, so output is the same every run. */
const DEMO_EPOCH_MS = Date.UTC(2024, 0, 1);

export interface DemoConfig {
  readonly seed: number;
  readonly pageSize: number;
  readonly sectorSize: number;
  readonly segmentBytes: number;
  /** 0 = off, else flush after every this many produced batches. */
  readonly flushEvery: number;
  /** A reader's course policies (`--policies`): the log runs on them. @defaultValue pagelog's own */
  readonly policies?: Partial<CoursePolicies>;
}

/** What a byte looks like in the picture. */
export type ByteState = "durable" | "cached" | "torn" | "cut" | "lost";

interface StateRange {
  readonly start: number;
  readonly end: number;
  readonly state: ByteState;
}

export type { BatchMark } from "./segment-bytes.js";

/** The active segment as the picture shows it. */
export interface SegmentView {
  readonly path: string;
  /** Bytes in the file now. */
  readonly size: number;
  /** Bytes to draw: the file plus any ghost of bytes lost or cut away. */
  readonly extent: number;
  /** The file's size on disk (a power cut keeps at least this much). */
  readonly durableSize: number;
  readonly pageSize: number;
  readonly ranges: readonly StateRange[];
  readonly batches: readonly BatchMark[];
  readonly dirtyPages: number;
  /** 1-based position of this segment among the partition's segments, and how many there are. */
  readonly segmentNumber: number;
  readonly segmentCount: number;
}

export interface DemoSnapshot {
  readonly config: DemoConfig;
  readonly power: "on" | "cut";
  /** Undefined while the power is off (the broker is down). */
  readonly endOffset: number | undefined;
  readonly recoveryPoint: number | undefined;
  readonly flushEvery: number;
  readonly acknowledged: number;
  readonly lostTotal: number;
  readonly cuts: number;
  readonly lastRecovery: string;
  readonly segment: SegmentView | undefined;
  /** "pagelog's own functions" or "your recover" (the policies the log runs on). */
  readonly runningOn: string;
  /** Set while the last restart failed on a policy: the log stays down until restarted on other ones. */
  readonly broken: PolicyBreak | undefined;
}

/** Counts for the "Break it" summary. */
export interface LossCount {
  readonly cuts: number;
  /** Records acknowledged while counting: those the log held at the start and every one since. */
  readonly acknowledged: number;
  /** Acknowledged records recovery did not bring back: never more than `acknowledged`. */
  readonly lost: number;
  /** Restarts whose recovery cut bytes (a torn batch, or zeros where data never arrived), and how many. */
  readonly tornCuts: number;
  readonly bytesCut: number;
}

export class DemoSession {
  readonly config: DemoConfig;
  #storage: SimStorage;
  #dir: LogDir | undefined;
  #log: Log | undefined;
  readonly #rng: Prng;
  #clockTicks = 0;
  #nextSensor = 1;
  /** Log end offset after the last acknowledged produce (or the last restart). */
  #acknowledged = 0;
  /** Records acknowledged since the counter was last reset, plus those held then (for the Break-it counts). */
  #acknowledgedCount = 0;
  #tornCuts = 0;
  #bytesCut = 0;
  #batchesSinceFlush = 0;
  #flushEvery: number;
  #lostTotal = 0;
  #cuts = 0;
  #lastRecovery = "none yet";
  /** Set by a power cut: the segment the picture shows and its size in the cache just before. */
  #cutState: { path: string; cachedSize: number } | undefined;
  /** Bytes no longer in the file that the picture still shows (cut by recovery, lost in a cut). */
  #ghost: { path: string; start: number; end: number; state: "cut" | "lost" } | undefined;
  /** The policies the log runs on (`usePagelogPolicies()` drops them). */
  #policies: Partial<CoursePolicies> | undefined;
  #broken: PolicyBreak | undefined;

  private constructor(config: DemoConfig) {
    this.config = config;
    this.#flushEvery = config.flushEvery;
    this.#policies = config.policies;
    this.#storage = new SimStorage({ seed: config.seed, pageSize: config.pageSize, sectorSize: config.sectorSize });
    // Records per batch come from their own generator, so they do not shift the disk's fates.
    this.#rng = new Prng(config.seed ^ 0x5eed);
  }

  static async start(config: DemoConfig): Promise<DemoSession> {
    const session = new DemoSession(config);
    await session.#open();
    return session;
  }

  get powerIsOff(): boolean {
    return this.#log === undefined;
  }

  /** Set while the last restart failed on a policy (the log stays down). */
  get broken(): PolicyBreak | undefined {
    return this.#broken;
  }

  get flushEvery(): number {
    return this.#flushEvery;
  }

  async #open(): Promise<LogRecovery> {
    // A simulated disk has no descriptor limit: no bound, so the demo never closes a descriptor to
    // stay under one, and the web page leaves the descriptor pool out (web/build.mjs).
    const dir = await LogDir.open(this.#storage, { maxOpenFiles: Number.MAX_SAFE_INTEGER });
    try {
      this.#log = await dir.log(PARTITION, {
        segmentBytes: this.config.segmentBytes,
        clock: { now: () => DEMO_EPOCH_MS + 1000 * this.#clockTicks++ },
        ...(this.#policies === undefined ? {} : { policies: this.#policies }),
      });
    } catch (err) {
      await dir.close(); // the open changed nothing; the directory's lock goes with it
      throw err;
    }
    this.#dir = dir;
    return this.#log.recovery;
  }

  /** What the log runs on: "pagelog's own functions" or "your recover". */
  get runningOn(): string {
    return runningOn(this.#policies);
  }

  /** `o`: run on pagelog's own functions from the next restart on (a way out of a broken recover). */
  usePagelogPolicies(): string {
    if (this.#policies === undefined) return "already running on pagelog's own functions";
    this.#policies = undefined;
    return `running on pagelog's own functions from now on${this.#log === undefined ? ": restart (r) to recover with them" : " (they take over at the next restart)"}`;
  }

  #activePath(log: Log): string {
    return `${PARTITION}/${offsetName(log.segmentBaseOffsets[log.segmentBaseOffsets.length - 1]!)}.log`;
  }

  // ---- steps: each returns one line saying what happened ---------------------------------

  /** Produces `batches` batches of 1-3 records each (`sensor-N` / `reading N`). */
  async produce(batches = 1): Promise<string> {
    const log = this.#log;
    if (log === undefined) return "the power is off: the broker is down until you restart it (r)";
    let first: number | undefined;
    let last = 0;
    let records = 0;
    let flushes = 0;
    for (let i = 0; i < batches; i++) {
      const count = 1 + this.#rng.int(3);
      const input = Array.from({ length: count }, () => {
        const n = this.#nextSensor++;
        return { key: `sensor-${n}`, value: `reading ${n}` };
      });
      let appended: { baseOffset: number; lastOffset: number };
      try {
        appended = await log.append(input);
      } catch (err) {
        const broken = policyBreakOf(err);
        if (broken === undefined) throw err;
        // The log refused the batch before writing a byte of it: nothing to acknowledge.
        return `produce failed: ${broken.message}: nothing was appended`;
      }
      const { baseOffset, lastOffset } = appended;
      if (this.#flushEvery > 0 && ++this.#batchesSinceFlush >= this.#flushEvery) {
        await log.flush();
        this.#batchesSinceFlush = 0;
        flushes++;
      }
      // Acknowledged only now: the append resolved, and the flush the policy asked for is done.
      this.#acknowledged = lastOffset + 1;
      this.#acknowledgedCount += count;
      first ??= baseOffset;
      last = lastOffset;
      records += count;
    }
    this.#ghost = undefined;
    const what =
      batches === 1
        ? `a batch of ${plural(records, "record")}`
        : `${plural(batches, "batch")}, ${plural(records, "record")}`;
    const flushed =
      flushes === 0 ? "only in the page cache" : flushes === 1 && batches === 1 ? "flushed" : `flushed ${flushes}x`;
    return `produced ${what}, offsets ${first}-${last}: acknowledged, ${flushed}`;
  }

  /** The OS writes back some dirty pages of the active segment (half of them, rounded up, by default). */
  async writeback(pages?: number): Promise<string> {
    const log = this.#log;
    if (log === undefined) return "the power is off: nothing to write back";
    const path = this.#activePath(log);
    const before = this.#storage.inspect(path).dirtyPages;
    if (before.length === 0) return "no dirty pages: everything in the cache is on disk already";
    this.#storage.writeback({ pages: pages ?? Math.ceil(before.length / 2), path });
    const after = new Set(this.#storage.inspect(path).dirtyPages);
    const written = before.filter((p) => !after.has(p));
    return `the OS wrote back ${written.length} of ${before.length} dirty pages (page ${written.join(", ")}) on its own; no fsync, so the file's size on disk did not move`;
  }

  /** `f`: the next "flush every" choice (off, 1, 5 batches), or the one given. */
  setFlushEvery(choice?: number): string {
    const i = FLUSH_CHOICES.indexOf(this.#flushEvery as (typeof FLUSH_CHOICES)[number]);
    this.#flushEvery = choice ?? FLUSH_CHOICES[(i + 1) % FLUSH_CHOICES.length]!;
    this.#batchesSinceFlush = 0;
    return this.#flushEvery === 0
      ? "flush every: off (Kafka's default): the page cache decides when bytes reach the disk"
      : `flush every: ${plural(this.#flushEvery, "batch")}: produce waits for fsync${this.#flushEvery === 1 ? " every time" : ` every ${this.#flushEvery} batches`}`;
  }

  /** `s`: fsync now. */
  async flush(): Promise<string> {
    const log = this.#log;
    if (log === undefined) return "the power is off: restart first (r)";
    const before = log.recoveryPoint;
    await log.flush();
    this.#batchesSinceFlush = 0;
    return `flushed: fsync of the segment and its indexes, then the recovery point moved ${before} -> ${log.recoveryPoint}`;
  }

  /** `c`: cut the power. The disk keeps what was synced; every dirty page is written, lost or torn. */
  async cut(): Promise<string> {
    const log = this.#log;
    if (log === undefined) return "the power is already off: restart (r)";
    const path = this.#activePath(log);
    const before = this.#storage.inspect(path);
    this.#storage = this.#storage.crash();
    this.#log = undefined;
    this.#dir = undefined; // abandoned with the old storage, as a dead process leaves its files
    this.#cuts++;
    this.#cutState = { path, cachedSize: before.size };
    this.#ghost = undefined;
    const after = (await this.#storage.stat(path))?.kind === "file" ? this.#storage.inspect(path) : undefined;
    const dirty = before.dirtyPages.length;
    if (after === undefined)
      return `POWER CUT with ${plural(dirty, "dirty page")}: the active segment's name never reached the disk (no directory fsync), so the whole file is gone. The log needs recovery: restart (r)`;
    const valid = await validPrefix(await readFile(this.#storage, path), baseOffsetOf(path));
    const tail = after.size - valid.bytes;
    const shape =
      tail > 0
        ? `the active segment now ends in the middle of a batch: ${plural(tail, "byte")} from byte ${valid.bytes} ${tail === 1 ? "is" : "are"} not a valid batch`
        : after.size < before.size
          ? `the active segment lost its last ${plural(before.size - after.size, "byte")}`
          : "every byte of the active segment reached the disk";
    return `POWER CUT with ${plural(dirty, "dirty page")} in the page cache: ${shape}. The log needs recovery: restart (r)`;
  }

  /** `r`: after a cut, boot the disk the cut left and recover; otherwise shut down cleanly and start again. */
  async restart(): Promise<string> {
    const before = this.#acknowledged;
    const wasCut = this.#log === undefined;
    if (!wasCut) await this.#dir!.close();
    let recovery: LogRecovery;
    try {
      recovery = await this.#open();
    } catch (err) {
      const broken = policyBreakOf(err);
      if (broken === undefined) throw err;
      // A policy refused (the log checks their answers): the broker stays down, the disk as it was.
      this.#log = undefined;
      this.#dir = undefined;
      this.#broken = broken;
      this.#lastRecovery = `${broken.kind}: ${broken.message}`;
      return brokenOutcome(broken);
    }
    this.#broken = undefined;
    const log = this.#log!;
    const after = log.endOffset;
    const lost = Math.max(0, before - after);
    this.#lostTotal += lost;
    this.#acknowledged = after;
    this.#batchesSinceFlush = 0;
    const cut = this.#cutState;
    this.#cutState = undefined;
    if (recovery.bytesTruncated > 0) {
      this.#tornCuts++;
      this.#bytesCut += recovery.bytesTruncated;
    }
    if (cut !== undefined && cut.path === this.#activePath(log) && recovery.bytesTruncated > 0) {
      const size = this.#storage.inspect(cut.path).size;
      this.#ghost = { path: cut.path, start: size, end: size + recovery.bytesTruncated, state: "cut" };
    }
    if (recovery.clean) {
      this.#lastRecovery = `clean shutdown: nothing to recover, log end offset ${before} -> ${after}`;
      return `restart after a clean shutdown: clean, nothing lost`;
    }
    const deleted =
      recovery.segmentsDeleted > 0 ? `, deleted ${plural(recovery.segmentsDeleted, "later segment")}` : "";
    const losses = lost === 0 ? "nothing lost" : `${plural(lost, "acknowledged record")} LOST`;
    this.#lastRecovery = `scanned ${plural(recovery.segmentsScanned, "segment")} (${plural(recovery.bytesScanned, "byte")}), cut ${plural(recovery.bytesTruncated, "byte")}${deleted}; log end offset ${before} -> ${after}: ${losses}`;
    return `restart after a power cut: recovery cut ${plural(recovery.bytesTruncated, "byte")}; log end offset ${before} -> ${after}: ${losses}`;
  }

  /** Cuts, acknowledged records and losses since `takeCounts()` was last called. */
  get counts(): LossCount {
    const [cuts, acknowledged, lost] = [this.#cuts, this.#acknowledgedCount, this.#lostTotal];
    return { cuts, acknowledged, lost, tornCuts: this.#tornCuts, bytesCut: this.#bytesCut };
  }

  /**
   * Cuts, acknowledged records and losses since the last call (for "Break it"). The records the
   * log holds acknowledged now count as acknowledged in the next period: a recovery that cuts too
   * much can lose them too, and a count of lost records must never exceed its total.
   */
  takeCounts(): LossCount {
    const counts = this.counts;
    this.#cuts = this.#lostTotal = this.#tornCuts = this.#bytesCut = 0;
    this.#acknowledgedCount = this.#acknowledged;
    return counts;
  }

  /** Closes the directory cleanly (if the power is on). */
  async close(): Promise<void> {
    await this.#dir?.close();
    this.#dir = undefined;
    this.#log = undefined;
  }

  // ---- the picture -----------------------------------------------------------------------

  /**
   * The picture. While the power is on, `segment` picks which segment to draw (1-based, clamped to
   * the ones there are; the web page's segment picker): by default the active one.
   */
  async snapshot(options: { readonly segment?: number } = {}): Promise<DemoSnapshot> {
    const log = this.#log;
    const common = {
      config: this.config,
      flushEvery: this.#flushEvery,
      acknowledged: this.#acknowledged,
      lostTotal: this.#lostTotal,
      cuts: this.#cuts,
      lastRecovery: this.#lastRecovery,
      runningOn: runningOn(this.#policies),
      broken: this.#broken,
    };
    if (log !== undefined) {
      return {
        ...common,
        power: "on",
        endOffset: log.endOffset,
        recoveryPoint: log.recoveryPoint,
        segment: await this.#liveView(log, options.segment),
      };
    }
    return {
      ...common,
      power: "cut",
      endOffset: undefined,
      recoveryPoint: undefined,
      segment: await this.#crashedView(),
    };
  }

  /** Power on: durable, cached-only and torn bytes from the simulator, batches from the bytes. */
  async #liveView(log: Log, segment: number | undefined): Promise<SegmentView> {
    const bases = log.segmentBaseOffsets;
    const index = segment === undefined ? bases.length - 1 : Math.min(Math.max(1, segment), bases.length) - 1;
    const path = `${PARTITION}/${offsetName(bases[index]!)}.log`;
    const map = this.#storage.inspect(path);
    const dirty = new Set(map.dirtyPages);
    const states: ByteState[] = [];
    for (const r of map.ranges) {
      for (let i = r.start; i < r.end; i++) {
        // A written-back page is on the disk even past the durable size: show it as durable (the
        // status line gives the size on disk separately).
        states.push(r.state === "torn" ? "torn" : dirty.has(Math.floor(i / map.pageSize)) ? "cached" : "durable");
      }
    }
    const ghost = this.#ghost?.path === path ? this.#ghost : undefined;
    const ranges = compress(states);
    if (ghost !== undefined)
      ranges.push({ start: Math.max(ghost.start, map.size), end: Math.max(ghost.end, map.size), state: ghost.state });
    const bytes = await readFile(this.#storage, path);
    const marks = (await validPrefix(bytes, baseOffsetOf(path))).marks;
    return {
      path,
      size: map.size,
      extent: Math.max(map.size, ghost?.end ?? 0),
      durableSize: map.durableSize,
      pageSize: map.pageSize,
      ranges: ranges.filter((r) => r.end > r.start),
      batches: marks,
      dirtyPages: map.dirtyPages.length,
      segmentNumber: index + 1,
      segmentCount: bases.length,
    };
  }

  /** Power off: what the disk holds now; bytes recovery will cut (red) and bytes the cut lost. */
  async #crashedView(): Promise<SegmentView | undefined> {
    const cut = this.#cutState;
    if (cut === undefined) return undefined;
    const logs = (await this.#storage.list(PARTITION)).filter((n) => parseSegmentFileName(n)?.suffix === ".log");
    const exists = (await this.#storage.stat(cut.path))?.kind === "file";
    const map = exists ? this.#storage.inspect(cut.path) : undefined;
    const size = map?.size ?? 0;
    const bytes = exists ? await readFile(this.#storage, cut.path) : new Uint8Array(0);
    const valid = await validPrefix(bytes, baseOffsetOf(cut.path));
    const states: ByteState[] = [];
    for (const r of map?.ranges ?? [])
      for (let i = r.start; i < r.end; i++) states.push(r.state === "torn" || i >= valid.bytes ? "torn" : "durable");
    const ranges = compress(states);
    if (cut.cachedSize > size) ranges.push({ start: size, end: cut.cachedSize, state: "lost" });
    const name = cut.path.slice(PARTITION.length + 1);
    return {
      path: cut.path,
      size,
      extent: Math.max(size, cut.cachedSize),
      durableSize: map?.durableSize ?? 0,
      pageSize: this.config.pageSize,
      ranges,
      batches: valid.marks,
      dirtyPages: 0,
      segmentNumber: Math.max(1, logs.indexOf(name) + 1),
      segmentCount: Math.max(1, logs.length),
    };
  }
}

function compress(states: readonly ByteState[]): StateRange[] {
  const out: StateRange[] = [];
  for (let i = 0; i < states.length; i++) {
    const last = out[out.length - 1];
    if (last !== undefined && last.state === states[i] && last.end === i) out[out.length - 1] = { ...last, end: i + 1 };
    else out.push({ start: i, end: i + 1, state: states[i]! });
  }
  return out;
}
