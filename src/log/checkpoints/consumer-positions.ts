/*
 * Every consumer's committed offsets, kept in one file in the log directory's root
 * (`consumer-offset-checkpoint`), written as the other checkpoints are: `<file>.tmp`, fsynced,
 * renamed, the directory fsynced. Read whole at `LogDir.open`; each write rewrites it whole.
 *
 * Commits share writes as appends share fsyncs: one write in flight and one queued, which every
 * commit made before it starts joins (it reads their values when it starts). So 64 commits in
 * flight cost two writes, not 64, and a commit resolves only once a write holding its value, or
 * a later one for the same partition, is durable.
 */
import { ErrorCode, PagelogError } from "../../errors.js";
import {
  type ConsumerOffsetEntry,
  decodeConsumerOffsets,
  encodeConsumerOffsets,
} from "../../format/consumer-offsets.js";
import type { Storage } from "../../storage/storage.js";
import { isNoRoom, writeFileAtomically } from "./checkpoint-files.js";
import { parsePartitionName } from "./partition-names.js";
import { SerialQueue } from "../util/serial-queue.js";

export const CONSUMER_OFFSET_CHECKPOINT = "consumer-offset-checkpoint";

/** Most (consumer, partition) positions a directory keeps: the file's size bound follows from it. */
export const MAX_POSITIONS = 65_536;
/**
 * The longest line: a consumer name (249), a space, a topic, a space and a partition (at most a
 * partition directory's 255 characters together), a space, a 16-digit offset, a newline.
 */
const MAX_LINE_BYTES = 249 + 1 + 255 + 1 + 16 + 1;
/**
 * Bytes the file may hold before it is malformed without being read (about 34 MB): every file
 * pagelog writes fits, and a hostile one (a sparse 3 GiB file, say) costs one `stat`.
 */
export const MAX_POSITIONS_BYTES = 2 + String(MAX_POSITIONS).length + 1 + MAX_POSITIONS * MAX_LINE_BYTES;

/** The key of one position: `<consumer> <partition directory name>` (names hold no space). */
export function positionKey(consumer: string, partition: string): string {
  return `${consumer} ${partition}`;
}

/** What reading the file found: its positions by key, or why it is not a positions file. */
export type PositionsRead =
  | { readonly state: "ok"; readonly positions: Map<string, number> }
  | { readonly state: "malformed"; readonly reason: string };

/**
 * Reads the file at open (absent: no positions yet). Reads nothing larger than {@link MAX_POSITIONS_BYTES}.
 * `listed`: whether the root's listing holds it; if not, no storage call is made (a directory
 * that has no consumers costs nothing more to open).
 */
export async function readPositions(storage: Storage, listed: boolean): Promise<PositionsRead> {
  const stat = listed ? await storage.stat(CONSUMER_OFFSET_CHECKPOINT) : null;
  if (stat === null) return { state: "ok", positions: new Map() };
  if (stat.kind !== "file") return { state: "malformed", reason: "it is not a file" };
  if (stat.size > MAX_POSITIONS_BYTES)
    return { state: "malformed", reason: `${stat.size} bytes, more than the ${MAX_POSITIONS_BYTES} it can need` };
  let handle;
  try {
    handle = await storage.open(CONSUMER_OFFSET_CHECKPOINT, { readOnly: true });
  } catch (err) {
    // A FIFO, socket or device there (`stat` reports every non-directory as a file): the storage
    // refuses it without blocking, and like any other file that is not a positions file it fails
    // only dir.consumer(), never the whole directory.
    if (err instanceof PagelogError && err.code === ErrorCode.IO)
      return { state: "malformed", reason: `it cannot be read as a file (${err.message})` };
    throw err;
  }
  let bytes: Uint8Array;
  try {
    // One byte more than its size: a file that grew since the stat is caught.
    bytes = await handle.read(0, stat.size + 1);
  } finally {
    await handle.close();
  }
  if (bytes.length > stat.size) return { state: "malformed", reason: "it grew while it was read" };
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return { state: "malformed", reason: "it is not UTF-8" };
  }
  const decoded = decodeConsumerOffsets(text);
  if (typeof decoded === "string") return { state: "malformed", reason: decoded };
  const positions = new Map<string, number>();
  for (const e of decoded) {
    const partition = `${e.topic}-${e.partition}`;
    if (parsePartitionName(partition) === undefined)
      return { state: "malformed", reason: `${partition} is not a partition name` };
    positions.set(positionKey(e.consumer, partition), e.offset);
  }
  if (positions.size > MAX_POSITIONS) return { state: "malformed", reason: `more than ${MAX_POSITIONS} positions` };
  return { state: "ok", positions };
}

interface PendingWrite {
  readonly commits: [key: string, offset: number][];
  promise?: Promise<void>;
}

/** The positions of one open directory: the durable ones, and the writes that move them. */
export class PositionStore {
  readonly #storage: Storage;
  /** Only values a resolved write (or the file at open) holds: what `committed()` answers. */
  #durable: Map<string, number>;
  /** Every key durable or queued: bounds the file (an over-estimate after a failed write). */
  readonly #keys: Set<string>;
  readonly #queue = new SerialQueue();
  /** A write queued and not started yet: every commit until it starts joins it. */
  #pending: PendingWrite | undefined;
  /** The failure of a write that did not only find the disk full: every later commit refuses. */
  #failure: unknown;
  /** Keys whose committed offset was past their log's end when the log was opened, until committed again. */
  readonly #aheadAtOpen = new Set<string>();

  constructor(storage: Storage, positions: Map<string, number>) {
    this.#storage = storage;
    this.#durable = positions;
    this.#keys = new Set(positions.keys());
  }

  committed(key: string): number | undefined {
    return this.#durable.get(key);
  }

  /** Whether `key`'s offset was past its log's end when the log was opened (and not committed since). */
  wasAheadAtOpen(key: string): boolean {
    return this.#aheadAtOpen.has(key);
  }

  /** A log was opened with this end: positions past it are ahead of the log until committed again. */
  logOpened(partition: string, end: number): void {
    for (const [key, offset] of this.#durable) {
      if (offset > end && key.slice(key.indexOf(" ") + 1) === partition) this.#aheadAtOpen.add(key);
    }
  }

  /** Resolves once `offset` (or a later commit's value) for `key` is durable. */
  commit(key: string, offset: number): Promise<void> {
    if (this.#failure !== undefined) {
      return Promise.reject(
        new PagelogError(
          "consumer positions failed a write earlier and refuse commits until the directory is reopened",
          ErrorCode.FAILED,
          { cause: this.#failure, path: CONSUMER_OFFSET_CHECKPOINT },
        ),
      );
    }
    if (!this.#keys.has(key) && this.#keys.size >= MAX_POSITIONS)
      return Promise.reject(new RangeError(`a log directory keeps at most ${MAX_POSITIONS} consumer positions`));
    this.#keys.add(key);
    let pending = this.#pending;
    if (pending === undefined) {
      const fresh: PendingWrite = { commits: [] };
      fresh.promise = this.#queue.run(() => this.#writeNext(fresh));
      pending = this.#pending = fresh;
    }
    pending.commits.push([key, offset]);
    return pending.promise!;
  }

  /** Resolves when every write queued so far has settled. */
  async drain(): Promise<void> {
    await this.#queue.run(() => Promise.resolve());
  }

  async #writeNext(write: PendingWrite): Promise<void> {
    if (this.#pending === write) this.#pending = undefined;
    if (this.#failure !== undefined) throw new PagelogError("consumer positions failed earlier", ErrorCode.FAILED);
    const next = new Map(this.#durable);
    // In call order: the last commit of a key wins, as it would one write at a time.
    for (const [key, offset] of write.commits) next.set(key, offset);
    try {
      // Temp file, fsync, rename, directory fsync: a crash leaves the old file or the new one, whole.
      await writeFileAtomically(this.#storage, CONSUMER_OFFSET_CHECKPOINT, new TextEncoder().encode(encode(next)));
      await this.#storage.syncDir("");
    } catch (err) {
      // A full disk wrote nothing that counts (the old file stands): later commits may retry.
      // Anything else (a failed fsync above all) leaves nothing to trust until a restart.
      if (!isNoRoom(err)) this.#failure ??= err;
      throw err;
    }
    this.#durable = next;
    for (const [key] of write.commits) this.#aheadAtOpen.delete(key);
  }
}

function encode(positions: Map<string, number>): string {
  const entries: ConsumerOffsetEntry[] = [];
  for (const key of [...positions.keys()].sort()) {
    const space = key.indexOf(" ");
    const { topic, partition } = parsePartitionName(key.slice(space + 1))!;
    entries.push({ consumer: key.slice(0, space), topic, partition, offset: positions.get(key)! });
  }
  return encodeConsumerOffsets(entries);
}
