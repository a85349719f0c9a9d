/*
 * `Log.records()`: every record of a range, read in batches through the log's queue, and with
 * `follow` the records appended after it reached the end, woken by the append (or for a
 * `durable` follower, the flush) that moved what it waits on. It waits outside the queue
 * (wait-until.ts), then queues its read: a waiting follower never holds up the log's other calls.
 *
 * This file is what runs at the call: the options' checks, the iterator's own queue of calls,
 * and `waitFor`'s look at a record already there. The body (each read and its checks, the waits)
 * is records-body.ts, a part loaded on first use through door-records.ts: by an iteration's first
 * next(), inside its first read (queued at that call, so it keeps its place among the log's calls),
 * or by a `waitFor` that must wait.
 */
import { describeValue } from "../../format/record-codec.js";
import { resolveOptions } from "../../options.js";
import { booleanOption, checkOffset } from "../options/log-arguments.js";
import { type LogRecord, readLimit } from "./log-read.js";
import { isolationOption } from "./transactions.js";
import { checkReadable, type LogState } from "../state/log-state.js";
import { loadRecords } from "./door-records.js";
import type { Iteration, RecordsOptions, Resolved, Run, WaitOptions } from "./records-types.js";

export type { RecordsOptions, WaitOptions } from "./records-types.js";

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
 * A record already there answers at once; else the wait (records-body.ts) loads, outside the
 * log's queue and failure guard: a chunk that fails to load fails this call alone.
 */
export async function waitForOffset(s: LogState, offset: unknown, options: WaitOptions): Promise<number> {
  checkOffset(offset, "offset");
  const { durable, signal } = resolveOptions<WaitOptions, { durable: boolean; signal: AbortSignal | undefined }>(
    options,
    "waitFor options",
    { durable: optionalBoolean("durable"), signal: optionalSignal },
  );
  // As the wait's first look would (wait-until.ts): an abort, a closed log, the record there.
  signal?.throwIfAborted();
  checkReadable(s);
  if (readLimit(s, durable) > offset) return readLimit(s, durable);
  return (body ??= await loadRecords()).waitFor(s, offset, durable, signal);
}

/** The body once a call loaded it (door-records.ts): later calls use it without waiting. */
let body: Awaited<ReturnType<typeof loadRecords>> | undefined;

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
      if (this.#it !== undefined && body !== undefined) {
        try {
          const record = body.take(this.#it, false);
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

  /**
   * One next(), reading (or, for a follower, waiting) when nothing read ahead is left. The first
   * checks the options, then queues its read at once (the log's calls after this one come after
   * it), and that read loads the body (door-records.ts) in its turn: a chunk that fails to load
   * fails that read, so this next(), and ends the iteration as any failure does.
   */
  async #step(): Promise<IteratorResult<LogRecord, void>> {
    if (this.#done) return DONE;
    try {
      let it = this.#it;
      let ahead: LogRecord[] | undefined;
      if (it === undefined) {
        const started = (it = this.#it = this.#start());
        started.o.signal?.throwIfAborted();
        ahead = await this.#run(async () => (body ??= await loadRecords()).readAhead(started));
      }
      const record = await body!.step(it, this.#run, ahead);
      if (record !== undefined) return { done: false, value: record };
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
}
