/*
 * `Log.records()`: every record of a range, read in batches through the log's queue, and with
 * `follow` the records appended after it reached the end, woken by the append (or for a
 * `durable` follower, the flush) that moved what it waits on. It waits outside the queue
 * (wait-until.ts), then queues its read: a waiting follower never holds up the log's other calls.
 */
import { ErrorCode, PagelogError } from "../../errors.js";
import { describeValue } from "../../format/record-codec.js";
import { type Present, resolveOptions } from "../../options.js";
import { booleanOption, checkOffset, outOfRange } from "../options/log-arguments.js";
import { DEFAULT_READ_BYTES, type LogRecord, readLimit, readLogRecords } from "./log-read.js";
import { type Isolation, isolationOption, knownLastStable } from "./transactions.js";
import { checkReadable, endOffsetOf, type LogState } from "../state/log-state.js";
import { openCursor, type ReadCursor } from "../state/read-cursors.js";
import { loadFollower } from "./door-follower.js";
import { knowsTransactions } from "./transactions.js";
import { waitUntil } from "./wait-until.js";

/** The range, the mode, and the signal that stops it, of `Log.records`. */
export interface RecordsOptions {
  /** First offset. @defaultValue the log start offset */
  from?: number;
  /**
   * Stop before this offset. @defaultValue the log end offset when each read runs (with `follow`:
   * never stop)
   */
  to?: number;
  /** Abort the iteration: its next step throws the signal's reason, even while it waits. */
  signal?: AbortSignal;
  /**
   * Keep going at the end: wait for the next append (woken by it, no polling; while more appends
   * of this process are on their way, for them too, up to 1 MiB or 2 ms) and yield its records, until `to`, an abort, a close (`PAGELOG_CLOSED`) or a failure (`PAGELOG_FAILED`).
   * A truncation below the records already yielded, or a start offset moved past the next one,
   * is `PAGELOG_OFFSET_OUT_OF_RANGE`. @defaultValue false
   */
  follow?: boolean;
  /**
   * Only records below the recovery point: a record yielded survives any later power cut. A
   * durable follower is woken by the flush that moves the recovery point. @defaultValue false
   */
  durable?: boolean;
  /**
   * What is yielded of a broker's transactions, as `Log.read`'s `isolation`: control records
   * never; `"read_committed"` skips aborted transactions' records and stops at the last stable
   * offset (a follower waits there for the transaction's marker); `"read_uncommitted"` yields
   * them and reads to the end. A log pagelog wrote has no transactions. @defaultValue "read_committed"
   */
  isolation?: Isolation;
}

/** Options of `Log.waitFor`. */
export interface WaitOptions {
  /** Wait for the recovery point instead of the end: until the record is durable. @defaultValue false */
  durable?: boolean;
  /** Abort the wait: it rejects with the signal's reason. */
  signal?: AbortSignal;
}

type Run = <T>(task: () => Promise<T>) => Promise<T>;

function optionalOffset(name: string) {
  return (value: unknown): number | undefined => {
    if (value !== undefined) checkOffset(value, name);
    return value;
  };
}

function optionalBoolean(name: string) {
  return (value: unknown): boolean => booleanOption(value, name);
}

function optionalSignal(value: unknown): AbortSignal | undefined {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- tsc needs it: `value` is unknown
  if (value !== undefined && typeof (value as { throwIfAborted?: unknown } | null)?.throwIfAborted !== "function")
    throw new TypeError(`signal must be an AbortSignal, got ${describeValue(value)}`);
  return value as AbortSignal | undefined;
}

/**
 * Resolves with the end offset (with `durable`, the recovery point) once it is above `offset`:
 * once the log holds the record at `offset` (durably). See `Log.waitFor`. Bad arguments reject.
 */
export async function waitForOffset(s: LogState, offset: unknown, options: WaitOptions): Promise<number> {
  checkOffset(offset, "offset");
  const { durable, signal } = resolveOptions<WaitOptions, { durable: boolean; signal: AbortSignal | undefined }>(
    options,
    "waitFor options",
    { durable: optionalBoolean("durable"), signal: optionalSignal },
  );
  await waitUntil(s, () => readLimit(s, durable) > offset, signal);
  return readLimit(s, durable);
}

type Resolved = Present<RecordsOptions> & { follow: boolean; durable: boolean; isolation: Isolation };

/** Where one iteration is: its cursor, its next offset, and the one read it holds ahead. */
interface Iteration {
  readonly s: LogState;
  readonly o: Resolved;
  /** Opened by the first read, in the queue: what was called before the iteration is its history. */
  cursor: ReadCursor | undefined;
  next: number;
  /** The offset after the last record handed out (`from` before any): `next` is past it only over a gap. */
  after: number;
  ahead: LogRecord[];
  at: number;
  /**
   * The offsets the read of `ahead` stepped over (control batches, aborted transactions), as
   * `[from, to)` pairs in order, and how many of them the position has passed.
   */
  skips: number[];
  skipAt: number;
}

/**
 * How far the iteration may read now: the end (or the recovery point), and at `read_committed`
 * the last stable offset as last seen (a read finds it anew).
 */
function limitOf(s: LogState, o: Resolved): number {
  const limit = readLimit(s, o.durable);
  return o.isolation === "read_committed" ? Math.min(limit, knownLastStable(s)) : limit;
}

/**
 * Checks that the position and what was read ahead still hold, dropping read-ahead a cut took.
 * Synchronous: nothing runs between it and the yield after it.
 */
function settle(it: Iteration, cursor: ReadCursor): void {
  const { s } = it;
  checkReadable(s);
  const cut = cursor.cut;
  cursor.cut = Infinity;
  // A cut in a gap stepped over (nothing handed out is gone): go on from the cut.
  if (cut >= it.after && cut < it.next) it.next = cut;
  if (cut < it.next) {
    // Records already handed out are gone. A follower's position is now outside [start, end], as
    // a Kafka fetch there is; a bounded iteration keeps its own code (it read a history that is no more).
    const who = it.o.follow ? "follower" : "iterator";
    const message = `log ${s.name} was truncated to ${cut}, below the ${who}'s offset ${it.next}`;
    throw new PagelogError(message, it.o.follow ? ErrorCode.OFFSET_OUT_OF_RANGE : ErrorCode.TRUNCATED, {
      path: s.name,
    });
  }
  if (cut < Infinity) {
    it.ahead = it.ahead.slice(it.at).filter((r) => r.offset < cut);
    it.at = 0;
    // Nor step over what was appended after the cut.
    const skips: number[] = [];
    for (let i = it.skipAt; i < it.skips.length && it.skips[i]! < cut; i += 2)
      skips.push(it.skips[i]!, Math.min(it.skips[i + 1]!, cut));
    it.skips = skips;
    it.skipAt = 0;
  }
  if (it.next < s.startOffset) throw outOfRange(it.next, s.startOffset, endOffsetOf(s));
}

/** The follower's part once a follower loaded it (door-follower.ts): a read asks without waiting. */
let followerPart: Awaited<ReturnType<typeof loadFollower>> | undefined;

/** Whether a follower reading as `o` may be handed the written tail at all (follow-tail.ts). */
function followsTail(s: LogState, o: Resolved): boolean {
  return (
    o.follow && !o.durable && s.readOnly === undefined && (o.isolation === "read_uncommitted" || !knowsTransactions(s))
  );
}

/** The next read, in the queue: up to one read's worth below the end (or the recovery point) and `to`. */
function fill(it: Iteration, run: Run): Promise<LogRecord[]> {
  const { s, o } = it;
  return run(async () => {
    checkReadable(s);
    if (it.cursor === undefined) {
      it.next = it.after = o.from ?? s.startOffset;
      if (it.next < s.startOffset || it.next > endOffsetOf(s)) throw outOfRange(it.next, s.startOffset, endOffsetOf(s));
      it.cursor = openCursor(s.cursors);
    } else {
      settle(it, it.cursor);
    }
    const end = readLimit(s, o.durable);
    let stop = Math.min(o.to ?? end, limitOf(s, o));
    if (it.next >= stop) return [];
    // At most `stop - next` records below `stop` (offsets increase); in a compacted log's gaps
    // fewer, and records at or past `stop` may follow them: those wait for a later read.
    let skips: number[] = [];
    const read = (): Promise<LogRecord[]> => {
      skips = [];
      return readLogRecords(s, it.next, DEFAULT_READ_BYTES, stop - it.next, o.isolation, skips);
    };
    // A follower of this process's writer is handed its bytes when it can be (follow-tail.ts);
    // else the read: a read-only log's clean point may be older than the files just read (read-only-retry.ts).
    // (Its part is loaded by the first wait at the end, in awaitChange: before it, no tail is kept.)
    const follower = followsTail(s, o) ? followerPart : undefined;
    const fromTail =
      follower === undefined ? undefined : await follower.tailRecords(s, it.next, DEFAULT_READ_BYTES, stop - it.next);
    const found = fromTail ?? (await s.mode.readRecords(s, it.next, read));
    if (found.length === 0 && s.readOnly !== undefined && it.next >= endOffsetOf(s)) {
      // A refresh inside that read (a truncateTo it met) moved the end down to the position or
      // below: a cut below it is told now, else there is nothing to read yet. Not damage.
      settle(it, it.cursor);
      return [];
    }
    // The read found the last stable offset anew (a transaction it met may be open).
    if (o.isolation === "read_committed") stop = Math.min(stop, knownLastStable(s));
    // The log holds offsets up to its end, so a read below it always finds a record: never
    // end an iteration early without saying why. (In the cleaned part of a compacted log the
    // cleaner may have dropped every record up to the end: readLogRecords read on to it; and
    // it reads on past the batches a reader never gets: control batches, aborted transactions.)
    if (found.length === 0 && skips.length === 0 && it.next >= s.offsetGaps.below && it.next < stop) {
      const message = `log ${s.name} has no record at or after offset ${it.next}, below its end ${endOffsetOf(s)}`;
      throw new PagelogError(message, ErrorCode.CORRUPT, { path: s.name });
    }
    // A read-only log's writer may have truncated and appended since the view (read-only-mode.ts).
    if (o.durable) stop = await s.mode.durableLimitAfterRead(s, stop);
    // (Offsets increase: when the last is below `stop`, every one is.)
    const records = (found.at(-1)?.offset ?? stop) < stop ? found : found.filter((r) => r.offset < stop);
    it.skips = skips;
    it.skipAt = 0;
    // Nothing below `stop`: the cleaner dropped every record up to it, or the batches up to it
    // are ones a reader never gets. Step over them, or a follower would wait for an end that is
    // already past its position.
    if (records.length === 0) it.next = Math.max(it.next, Math.min(stop, skips.at(-1) ?? stop));
    return records;
  });
}

/**
 * A follower at the end: waits (outside the queue) until there is something for its next read
 * to do: the end (or recovery point) above its position, a cut, or the start past it; then, for
 * a follower of the end, while the writer streams, until more has gathered.
 */
async function awaitChange(it: Iteration): Promise<void> {
  const { s, o } = it;
  const cursor = it.cursor!;
  const moved = (): boolean => cursor.cut !== Infinity || s.startOffset > it.next;
  // The follower's part (follow-tail.ts, follow-coalesce.ts, the written tail) is loaded on the
  // first wait at the end, outside the queue: a chunk that fails to load fails this next() alone.
  const follower = (followerPart ??= await loadFollower());
  if (followsTail(s, o)) follower.keepTail(s); // the writes it waits for: keep them in memory for it
  await waitUntil(s, () => limitOf(s, o) > it.next || moved(), o.signal);
  // Woken by an append while more are coming: read them together (follow-coalesce.ts).
  if (o.durable || s.readOnly !== undefined || moved()) return;
  await follower.gatherAppends(s, () => moved() || (o.to !== undefined && endOffsetOf(s) >= o.to), o.signal);
}

/**
 * Every record from `from` (inclusive) to `to` (exclusive), read in batches through `run` (the
 * log's queue, so each read keeps call order with the other calls). Its checks run at the first
 * next(), as a generator's do.
 *
 * One history: every record is handed out only if the log holds it at that offset at that
 * moment. A truncation below the next offset took records already handed out (a follower's
 * history diverged): `PAGELOG_TRUNCATED` (`PAGELOG_OFFSET_OUT_OF_RANGE` for a follower). A
 * truncation at or above it drops what was read ahead from the cut on, and the iteration goes
 * on in the log as it now is. A start offset moved past the next offset (retention,
 * deleteRecordsBefore) is `PAGELOG_OFFSET_OUT_OF_RANGE`, as a fetch there is; a closed log is
 * `PAGELOG_CLOSED`. Offsets are taken as `read()` takes them: `from` at the end is an empty
 * iteration (a follower waits there), past it or below the start is out of range.
 */
export function iterateRecords(
  s: LogState,
  options: RecordsOptions,
  run: Run,
): AsyncGenerator<LogRecord, void, undefined> {
  return new RecordsIterator(s, options, run);
}

const DONE: IteratorReturnResult<void> = Object.freeze({ done: true, value: undefined });

/**
 * `iterateRecords`' iterator, written out by hand rather than as an async generator: a record
 * read ahead is handed out by a synchronous step and one resolved promise, where a generator
 * costs a resumption and several promise jobs per record. It keeps a generator's semantics:
 * calls are queued and answered in order (one at a time, the first one starting at once, so a
 * first read enters the log's queue at the call), the options are checked at the first next(),
 * a failure ends it, and return()/throw() (a `break`) close it, freeing its cursor.
 */
class RecordsIterator implements AsyncGenerator<LogRecord, void, undefined> {
  readonly #s: LogState;
  readonly #options: RecordsOptions;
  readonly #run: Run;
  #it: Iteration | undefined;
  #done = false;
  /** Calls not answered yet, and the last one's promise: the next call waits for it. */
  #queued = 0;
  #tail: Promise<unknown> = Promise.resolve();

  constructor(s: LogState, options: RecordsOptions, run: Run) {
    this.#s = s;
    this.#options = options;
    this.#run = run;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<LogRecord, void>> {
    if (this.#queued === 0) {
      if (this.#done) return Promise.resolve(DONE);
      // The common step: a record already read ahead, handed out now.
      if (this.#it !== undefined) {
        try {
          const record = this.#take(this.#it, false);
          if (record !== undefined) return Promise.resolve({ done: false, value: record });
        } catch (err) {
          this.#finish();
          return Promise.reject(err);
        }
      }
    }
    return this.#enqueue(() => this.#step());
  }

  return(): Promise<IteratorResult<LogRecord, void>> {
    return this.#enqueue(() => {
      this.#finish();
      return Promise.resolve(DONE);
    });
  }

  throw(err: unknown): Promise<IteratorResult<LogRecord, void>> {
    return this.#enqueue(() => {
      this.#finish();
      return Promise.reject(err);
    });
  }

  /** Runs `task` once every call before it was answered; at once if none is pending. */
  #enqueue<T>(task: () => Promise<T>): Promise<T> {
    const wrapped = async (): Promise<T> => {
      try {
        return await task();
      } finally {
        this.#queued--;
      }
    };
    const result = this.#queued++ === 0 ? wrapped() : this.#tail.then(wrapped, wrapped);
    this.#tail = result;
    return result;
  }

  /** Ends the iteration: no more records, its cursor freed. */
  #finish(): void {
    this.#done = true;
    const cursor = this.#it?.cursor;
    if (cursor !== undefined) this.#s.cursors.delete(cursor.ref);
    this.#it = undefined;
  }

  /** One next(), reading (or, for a follower, waiting) when nothing read ahead is left. */
  async #step(): Promise<IteratorResult<LogRecord, void>> {
    if (this.#done) return DONE;
    try {
      const it = (this.#it ??= this.#start());
      const { o } = it;
      let fresh = false;
      for (;;) {
        const record = this.#take(it, fresh);
        if (record !== undefined) return { done: false, value: record };
        if (it.cursor !== undefined && o.to !== undefined && it.next >= o.to) break;
        it.ahead = await fill(it, this.#run);
        it.at = 0;
        fresh = it.ahead.length > 0;
        if (fresh) continue;
        if (!o.follow || (o.to !== undefined && it.next >= o.to)) break;
        await awaitChange(it);
      }
    } catch (err) {
      this.#finish();
      throw err;
    }
    this.#finish();
    return DONE;
  }

  #start(): Iteration {
    const o = resolveOptions<RecordsOptions, Resolved>(this.#options, "records options", {
      from: optionalOffset("from"),
      to: optionalOffset("to"),
      signal: optionalSignal,
      follow: optionalBoolean("follow"),
      durable: optionalBoolean("durable"),
      isolation: isolationOption,
    });
    const from = o.from ?? 0;
    return { s: this.#s, o, cursor: undefined, next: from, after: from, ahead: [], at: 0, skips: [], skipAt: 0 };
  }

  /**
   * The next record read ahead, checked against what happened to the log since it was read, or
   * undefined when none is left. `fresh`: just read (the abort is checked before it is handed out).
   */
  #take(it: Iteration, fresh: boolean): LogRecord | undefined {
    const { s, o } = it;
    if (!fresh) {
      o.signal?.throwIfAborted();
      if (it.at === it.ahead.length) return undefined;
    }
    // What happened to the log while these records waited (or since the read resolved).
    settle(it, it.cursor!);
    if (it.at === it.ahead.length) {
      // A cut took all of it: as at the top of a step, an abort first.
      if (fresh) o.signal?.throwIfAborted();
      return undefined;
    }
    const record = it.ahead[it.at]!;
    // Over the offsets of batches a reader never gets, the position moves as if they were read.
    while (record.offset !== it.next && it.skipAt < it.skips.length && it.skips[it.skipAt]! <= it.next) {
      it.next = Math.max(it.next, it.skips[it.skipAt + 1]!);
      it.skipAt += 2;
    }
    // Every offset of a log holds a record: a batch that skips one (as only a compacted or
    // hostile batch can) would hand out a hole as if nothing were missing. Except in the part
    // the log cleaner rewrote (below the clean point), where its gaps are the records it dropped.
    if (record.offset !== it.next && !(it.next < s.offsetGaps.below && record.offset <= s.offsetGaps.below)) {
      throw new PagelogError(
        `log ${s.name} has no record at offset ${it.next} (the next record is ${record.offset})`,
        ErrorCode.CORRUPT,
        { path: s.name },
      );
    }
    o.signal?.throwIfAborted();
    it.at++;
    it.next = it.after = record.offset + 1;
    return record;
  }
}
