/*
 * A named consumer's committed positions (`dir.consumer(name)`): one offset per partition, kept
 * in the consumer's own file (`consumers/<name>/offsets`), durable when `commit` resolves.
 */
import { isPositionName } from "../../format/consumer-offsets.js";
import { describeValue } from "../../format/record-codec.js";
import type { Log } from "../log.js";
import { checkOffset } from "../options/log-arguments.js";
import { positionKey } from "../checkpoints/consumer-files.js";
import { MAX_DIR_NAME_LENGTH, parsePartitionName } from "../checkpoints/partition-names.js";

/**
 * Where a consumer stands on one log (`consumer.position(log)`):
 * - `none`: nothing committed for the partition yet;
 * - `ok`: the committed offset is in `[startOffset, endOffset]` (equal to the end: caught up);
 * - `ahead-of-log`: the committed offset is past the log's end, or was when the log was opened
 *   (a power cut took records the consumer had read and committed: they were never durable).
 *   Offsets from the end on are given to new records, so resuming at `committed` would skip some;
 *   the consumer decides (for example, go back to `endOffset` and commit it);
 * - `behind-start`: retention (or `deleteRecordsBefore`) removed records the consumer has not read.
 */
export type ConsumerPositionState = "none" | "ok" | "ahead-of-log" | "behind-start";

/** A consumer's committed offset against one log's offsets, as `consumer.position(log)` reports it. */
export interface ConsumerPosition {
  /** The partition directory name (`log.name`). */
  readonly partition: string;
  /** The committed offset (the next offset to read), or undefined if none was committed. */
  readonly committed: number | undefined;
  /** How `committed` relates to the log (see {@link ConsumerPositionState}). */
  readonly state: ConsumerPositionState;
  /** The log's start offset now. */
  readonly startOffset: number;
  /** The log's end offset now. */
  readonly endOffset: number;
}

/**
 * What a Consumer needs of its directory (consumers/dir-consumers.ts): its positions, whose
 * store (checkpoints/consumer-positions.ts, in the positions files' chunk) the commit and refresh
 * load when the open did not.
 */
interface ConsumerHost {
  /** The durable committed offset of `key` (undefined: none, or no store yet: nothing committed). */
  readonly committed: (key: string) => number | undefined;
  readonly wasAheadAtOpen: (key: string) => boolean;
  readonly commit: (key: string, offset: number) => Promise<void>;
  readonly refresh: () => Promise<void>;
  /** Throws if the directory cannot take this call now (closed). */
  readonly check: () => void;
}

export function checkConsumerName(name: unknown): asserts name is string {
  if (!isPositionName(name))
    throw new TypeError(
      `consumer name must be 1 to 249 characters of [a-zA-Z0-9._-], not "." or ".."; got ${typeof name === "string" ? JSON.stringify(name.length > 300 ? `${name.slice(0, 300)}…` : name) : typeof name}`,
    );
}

function checkPartitionArgument(partition: unknown): asserts partition is string {
  if (typeof partition !== "string" || parsePartitionName(partition) === undefined) {
    throw new TypeError(
      `partition must be a partition directory name <topic>-<partition> (a topic of [a-zA-Z0-9._-], a partition in [0, 2147483647], at most ${MAX_DIR_NAME_LENGTH} characters), got ${describeValue(partition)}`,
    );
  }
}

/**
 * A named consumer's committed offsets, one per partition, from `dir.consumer(name)`. A committed offset is the next
 * offset the consumer will read (Kafka's convention). `commit` is durable when it resolves; concurrent commits, of any
 * consumers and partitions, share their writes.
 */
export class Consumer {
  /** The consumer's name. */
  readonly name: string;
  readonly #host: ConsumerHost;

  /** @internal Made by `LogDir.consumer(name)`. */
  constructor(name: string, host: ConsumerHost) {
    this.name = name;
    this.#host = host;
  }

  /**
   * Commits `offset` for `partition` (a partition directory name such as `orders-0`): resolves once it is durable,
   * and from then on every open of the directory reads it (or a later commit's value). Rejects with the write's error
   * if a write fails (`PAGELOG_IO`, `PAGELOG_NO_SPACE`; after a failed fsync every later commit is `PAGELOG_FAILED`
   * until the directory is reopened), `PAGELOG_CLOSED` after `dir.close()`. Any opener may commit, a read-only one
   * too: the first commit takes the consumer's lock until `dir.close()`, and another opener holding it is
   * `PAGELOG_LOCKED` (naming the holder); a directory that cannot be written (a read-only mount) is `PAGELOG_READ_ONLY`.
   */
  commit(partition: string, offset: number): Promise<void> {
    try {
      checkPartitionArgument(partition);
      checkOffset(offset, "offset");
      this.#host.check();
    } catch (err) {
      return Promise.reject(err);
    }
    return this.#host.commit(positionKey(this.name, partition), offset);
  }

  /**
   * Reads the consumer's positions again: what another process (or another LogDir) committed for it since this
   * directory was opened or last refreshed. Nothing changes while this directory holds the consumer's lock (from its
   * first commit here until `dir.close()`): no one else can commit then. `PAGELOG_CORRUPT` if the consumer's file is
   * not a positions file.
   */
  refresh(): Promise<void> {
    try {
      this.#host.check();
    } catch (err) {
      return Promise.reject(err);
    }
    return this.#host.refresh();
  }

  /** The last durable committed offset for `partition`, or undefined if none was committed. */
  committed(partition: string): number | undefined {
    checkPartitionArgument(partition);
    this.#host.check();
    return this.#host.committed(positionKey(this.name, partition));
  }

  /** The committed offset of `log`'s partition against the log's offsets now: see {@link ConsumerPositionState}. */
  position(log: Log): ConsumerPosition {
    if (typeof log !== "object" || log === null || typeof log.name !== "string" || typeof log.endOffset !== "number")
      throw new TypeError(`log must be a Log (from dir.log(name)), got ${describeValue(log)}`);
    this.#host.check();
    const key = positionKey(this.name, log.name);
    const committed = this.#host.committed(key);
    const { startOffset, endOffset } = log;
    let state: ConsumerPositionState = "ok";
    if (committed === undefined) state = "none";
    else if (committed > endOffset || this.#host.wasAheadAtOpen(key)) state = "ahead-of-log";
    else if (committed < startOffset) state = "behind-start";
    return { partition: log.name, committed, state, startOffset, endOffset };
  }
}
