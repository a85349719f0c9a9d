/*
 * A LogDir's consumers: the Consumer objects by name, each one's position store (its own file, or
 * its entries of the directory-wide file of earlier versions), and the checks their calls go
 * through (closed). Any opener commits, a read-only one too: the consumer's lock, taken at its
 * first commit here, makes this opener its one writer until the directory closes.
 *
 * A shell: the stores, their commits and refreshes and the positions files are the positions
 * files' part (checkpoints/door-position-files.ts). An open whose root holds positions loaded it,
 * and `dir.consumer()` makes the consumer's store at once (a file that is not a positions file is
 * `PAGELOG_CORRUPT` there, as before). Otherwise the open found no positions, so a consumer has
 * nothing committed until its first commit, which loads the part (as a refresh does) and makes the
 * store: a directory that never had a consumer and commits none never loads it.
 */
import type { Storage } from "../../storage/storage.js";
import { checkConsumerName, Consumer } from "./consumer.js";
import type { PositionStore } from "../checkpoints/consumer-positions.js";
import { loadPositionFiles } from "../checkpoints/door-position-files.js";
import type { OpenedConsumers } from "../checkpoints/root-reads.js";

type PositionFiles = OpenedConsumers["part"];

export class DirConsumers {
  readonly #storage: Storage;
  /** What the open read (undefined: the root held no positions). */
  readonly #read: OpenedConsumers["read"] | undefined;
  /** The positions files' part, once loaded (by the open, or a consumer's first commit or refresh). */
  #part: PositionFiles | undefined;
  /** Its load in flight: every call waiting on it runs, in call order, when it resolves. */
  #loading: Promise<PositionFiles> | undefined;
  readonly #stores = new Map<string, PositionStore>();
  readonly #consumers = new Map<string, Consumer>();
  readonly #checkOpen: () => void;
  /** The logs opened so far and their end then: a store made later learns of them too. */
  readonly #opened = new Map<string, number>();

  /** `checkOpen` throws if the directory is closing or closed. */
  constructor(storage: Storage, opened: OpenedConsumers | undefined, checkOpen: () => void) {
    this.#storage = storage;
    this.#read = opened?.read;
    this.#part = opened?.part;
    this.#checkOpen = checkOpen;
  }

  /** The consumer `name`: the same object for the same name. */
  get(name: string): Consumer {
    checkConsumerName(name);
    this.#checkOpen();
    let consumer = this.#consumers.get(name);
    if (consumer === undefined) {
      // Positions read at open: the store now, so a file that is not one fails this call.
      if (this.#part !== undefined && !this.#stores.has(name)) this.#storeOf(name, this.#part);
      const stores = this.#stores;
      consumer = new Consumer(name, {
        committed: (key) => stores.get(name)?.committed(key),
        wasAheadAtOpen: (key) => stores.get(name)?.wasAheadAtOpen(key) ?? false,
        commit: (key, offset) => this.#withStore(name, (store) => store.commit(key, offset)),
        refresh: () => this.#withStore(name, (store) => store.refresh()),
        check: this.#checkOpen,
      });
      this.#consumers.set(name, consumer);
    }
    return consumer;
  }

  /**
   * Runs `call` on the consumer's store, made once the part is loaded. A part that fails to load
   * (a chunk a network error kept) fails the calls that waited for it, and the next call loads it.
   */
  #withStore(name: string, call: (store: PositionStore) => Promise<void>): Promise<void> {
    const store = this.#stores.get(name);
    if (store !== undefined) return call(store);
    this.#loading ??= loadPositionFiles().then(
      (part) => (this.#part = part),
      (err: unknown) => {
        this.#loading = undefined;
        throw err;
      },
    );
    return this.#loading.then((part) => call(this.#stores.get(name) ?? this.#storeOf(name, part)));
  }

  #storeOf(name: string, part: PositionFiles): PositionStore {
    const store = part.storeFor(this.#storage, name, this.#read, this.#opened);
    this.#stores.set(name, store);
    return store;
  }

  /** A log was opened: positions past its end are `ahead-of-log` until committed again. */
  logOpened(partition: string, end: number): void {
    this.#opened.set(partition, end);
    for (const store of this.#stores.values()) store.logOpened(partition, end);
  }

  /** Waits for every commit made so far to be written (or to fail), then gives every consumer's lock up. */
  async close(): Promise<void> {
    // Commits waiting for the part queue their writes when it loads: they are made before close().
    await this.#loading?.catch(() => undefined);
    await this.#part?.closeStores([...this.#stores.values()]);
  }
}
