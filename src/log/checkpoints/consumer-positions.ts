/*
 * Consumer positions. Each consumer keeps its own file, `consumers/<name>/offsets` (Kafka's
 * checkpoint text, one line per partition), written as the other checkpoints are: `<file>.tmp`,
 * fsynced, renamed, the directory fsynced. Any opener of the directory may commit, a read-only
 * one too (a consumer in another process than the writer's): the first commit of a consumer
 * takes its lock, `consumers/<name>/lock` (the storage's lock: a pid file on disk, so a second
 * process, or a second LogDir in this one, gets `PAGELOG_LOCKED` naming the holder), reads the
 * file again under it (another opener may have committed since this one read it), and holds it
 * until the directory closes. One writer per consumer, so no commit is ever lost to another's.
 *
 * The directory-wide `consumer-offset-checkpoint` of earlier versions is still read at open: a
 * consumer without a file of its own reads its positions there, and its first commit carries them
 * into its own file, which from then on is the only one that counts for it.
 *
 * Commits share writes as appends share fsyncs: one write in flight and one queued, which every
 * commit made before it starts joins (it reads their values when it starts). So 64 commits in
 * flight cost two writes, not 64, and a commit resolves only once a write holding its value, or
 * a later one for the same partition, is durable.
 *
 * The positions files' part (door-position-files.ts loads this module, with position-files.ts):
 * a directory that never had a consumer and commits none loads none of this.
 * `dir.consumer()` and its synchronous calls are consumers/'s shell: a store is made at
 * `dir.consumer()` when the open read positions files, else at the consumer's first commit or
 * refresh, before which it has nothing committed to answer.
 */
import { ErrorCode, PagelogError } from "../../errors.js";
import type { Storage } from "../../storage/storage.js";
import { isPositionName } from "../../format/consumer-offsets.js";
import {
  adoptPositions,
  CONSUMER_OFFSET_CHECKPOINT,
  type ConsumersRead,
  CONSUMERS_DIR,
  consumerFile,
  corruptConsumerFile,
  corruptPositions,
  type Positions,
  type PositionsRead,
} from "./consumer-files.js";
import { MAX_POSITIONS, readPositionsFile, writeCommits } from "./position-files.js";
import { SerialQueue } from "../util/serial-queue.js";
import { settleAll } from "../util/settle-all.js";

/**
 * What an open whose root lists positions (the directory-wide file of earlier versions, or
 * `consumers/`) reads: that file (absent: no positions) and each consumer's own file, by name.
 */
export async function readConsumers(storage: Storage, rootNames: readonly string[]): Promise<ConsumersRead> {
  const [legacy, own] = await settleAll([
    rootNames.includes(CONSUMER_OFFSET_CHECKPOINT)
      ? readPositionsFile(storage, CONSUMER_OFFSET_CHECKPOINT)
      : Promise.resolve<PositionsRead>({ state: "ok", positions: new Map() }),
    readOwnFiles(storage, rootNames),
  ] as const);
  return { legacy, own };
}

async function readOwnFiles(storage: Storage, rootNames: readonly string[]): Promise<Map<string, PositionsRead>> {
  if (!rootNames.includes(CONSUMERS_DIR) || (await storage.stat(CONSUMERS_DIR))?.kind !== "dir") return new Map();
  const consumers = (await storage.list(CONSUMERS_DIR)).filter((name) => isPositionName(name));
  const reads = await settleAll(consumers.map((name) => readPositionsFile(storage, consumerFile(name), name)));
  return new Map(consumers.map((name, i) => [name, reads[i]!]));
}

/**
 * The store of consumer `name`'s positions: its own file as the open read it if it has one, else
 * its entries of the directory-wide file (`read` undefined: the root held neither). `PAGELOG_CORRUPT`
 * if the file it would read is not a positions file. `opened`: the logs opened so far and their end.
 */
export function storeFor(
  storage: Storage,
  name: string,
  read: ConsumersRead | undefined,
  opened: ReadonlyMap<string, number>,
): PositionStore {
  const own = read?.own.get(name);
  if (own?.state === "malformed") throw corruptConsumerFile(name, own.reason);
  let positions = own?.positions;
  if (positions === undefined) {
    const legacy = read?.legacy ?? { state: "ok", positions: new Map<string, number>() };
    if (legacy.state === "malformed") throw corruptPositions(legacy.reason);
    positions = new Map([...legacy.positions].filter(([key]) => key.startsWith(`${name} `)));
  }
  const store = new PositionStore(storage, name, positions);
  for (const [partition, end] of opened) store.logOpened(partition, end);
  return store;
}

interface PendingWrite {
  readonly commits: [key: string, offset: number][];
  promise?: Promise<void>;
}

/**
 * One consumer's positions in one open directory: the durable ones, and the queue of writes that
 * move them (each write is position-files.ts's `writeCommits`).
 */
export class PositionStore {
  readonly #p: Positions;
  readonly #queue = new SerialQueue();
  /** A write queued and not started yet: every commit until it starts joins it. */
  #pending: PendingWrite | undefined;

  /** `positions`: the consumer's own file as read at open, or its entries of the directory-wide file. */
  constructor(storage: Storage, consumer: string, positions: Map<string, number>) {
    this.#p = {
      storage,
      consumer,
      durable: positions,
      keys: new Set(positions.keys()),
      failure: undefined,
      lock: undefined,
      aheadAtOpen: new Set(),
    };
  }

  committed(key: string): number | undefined {
    return this.#p.durable.get(key);
  }

  /** Whether `key`'s offset was past its log's end when the log was opened (and not committed since). */
  wasAheadAtOpen(key: string): boolean {
    return this.#p.aheadAtOpen.has(key);
  }

  /** A log was opened with this end: positions past it are ahead of the log until committed again. */
  logOpened(partition: string, end: number): void {
    for (const [key, offset] of this.#p.durable) {
      if (offset > end && key.slice(key.indexOf(" ") + 1) === partition) this.#p.aheadAtOpen.add(key);
    }
  }

  /**
   * Reads the consumer's file again: what other openers committed since. Nothing to read while
   * this opener holds the consumer's lock (it is the only writer). A file that is not one is
   * `PAGELOG_CORRUPT`, and the positions stay as they were.
   */
  refresh(): Promise<void> {
    return this.#queue.run(async () => {
      const p = this.#p;
      if (p.lock !== undefined) return;
      adoptPositions(p, await readPositionsFile(p.storage, consumerFile(p.consumer), p.consumer));
    });
  }

  /** Resolves once `offset` (or a later commit's value) for `key` is durable. */
  commit(key: string, offset: number): Promise<void> {
    const p = this.#p;
    if (p.failure !== undefined) {
      return Promise.reject(
        new PagelogError(
          "consumer positions failed a write earlier and refuse commits until the directory is reopened",
          ErrorCode.FAILED,
          { cause: p.failure, path: consumerFile(p.consumer) },
        ),
      );
    }
    if (!p.keys.has(key) && p.keys.size >= MAX_POSITIONS)
      return Promise.reject(new RangeError(`a consumer keeps at most ${MAX_POSITIONS} positions`));
    p.keys.add(key);
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

  /** After `drain()`: gives the consumer's lock up (the directory closes). */
  async release(): Promise<void> {
    const lock = this.#p.lock;
    this.#p.lock = undefined;
    await lock?.release();
  }

  async #writeNext(write: PendingWrite): Promise<void> {
    if (this.#pending === write) this.#pending = undefined;
    if (this.#p.failure !== undefined) throw new PagelogError("consumer positions failed earlier", ErrorCode.FAILED);
    await writeCommits(this.#p, write.commits);
  }
}

/** A directory's close: waits for every commit made so far to be written (or to fail), then gives each consumer's lock up. */
export async function closeStores(stores: readonly PositionStore[]): Promise<void> {
  await Promise.allSettled(stores.map((store) => store.drain()));
  const released = await Promise.allSettled(stores.map((store) => store.release()));
  const failed = released.find((r): r is PromiseRejectedResult => r.status === "rejected");
  if (failed !== undefined) throw failed.reason;
}
