/*
 * The body of `Log.records()` and `Log.waitFor()`: a part loaded on first use, through its door
 * (door-records.ts), by an iteration's first next() (inside that next()'s read, in the log's queue)
 * or a `waitFor` that must wait. records-iterator.ts keeps what runs at the call: the option
 * checks, and the iterator's own queue of calls. Here: each read ahead and the checks of what
 * it read (a truncation under it, the start moved past it, a hole), a follower's waits at the
 * end, and `waitFor`'s wait.
 */
import { ErrorCode, PagelogError } from "../../errors.js";
import { outOfRange } from "../options/log-arguments.js";
import { DEFAULT_READ_BYTES, type LogRecord, readLimit, readLogRecords } from "./log-read.js";
import { knownLastStable, knowsTransactions } from "./transactions.js";
import { checkReadable, endOffsetOf, type LogState } from "../state/log-state.js";
import { openCursor, type ReadCursor } from "../state/read-cursors.js";
import { loadFollower } from "./door-follower.js";
import type { Iteration, Resolved, Run } from "./records-types.js";
import { waitUntil } from "./wait-until.js";

/**
 * `Log.waitFor` once it must wait (records-iterator.ts `waitForOffset` checked the arguments and
 * found the record not there yet): the end (or recovery point) once above `offset`.
 */
export async function waitFor(
  s: LogState,
  offset: number,
  durable: boolean,
  signal: AbortSignal | undefined,
): Promise<number> {
  await waitUntil(s, () => readLimit(s, durable) > offset, signal);
  return readLimit(s, durable);
}

/**
 * One next() of an iteration, reading (or, for a follower, waiting) when nothing read ahead is
 * left: the next record, or undefined at the end. `ahead`: what the iteration's first read
 * returned, when this step made it (records-iterator.ts queues it at the first next()).
 */
export async function step(it: Iteration, run: Run, ahead?: LogRecord[]): Promise<LogRecord | undefined> {
  const { o } = it;
  let fresh = false;
  for (;;) {
    if (ahead === undefined) {
      const record = take(it, fresh);
      if (record !== undefined) return record;
      if (it.cursor !== undefined && o.to !== undefined && it.next >= o.to) return undefined;
      ahead = await fill(it, run);
    }
    it.ahead = ahead;
    it.at = 0;
    ahead = undefined;
    fresh = it.ahead.length > 0;
    if (fresh) continue;
    if (!o.follow || (o.to !== undefined && it.next >= o.to)) return undefined;
    await awaitChange(it);
  }
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
  return run(() => readAhead(it));
}

/**
 * The read of `fill`, inside the log's queue (the first one is queued by records-iterator.ts, at
 * the first next(): its turn loads this part). Opens the cursor at the first read.
 */
export async function readAhead(it: Iteration): Promise<LogRecord[]> {
  const { s, o } = it;
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
 * The next record read ahead, checked against what happened to the log since it was read, or
 * undefined when none is left. `fresh`: just read (the abort is checked before it is handed out).
 */
export function take(it: Iteration, fresh: boolean): LogRecord | undefined {
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
