/*
 * A LogDir's consumers: each one's position store (its own file, or its entries of the
 * directory-wide file of earlier versions), the Consumer objects by name, and the checks their
 * calls go through (closed). Any opener commits, a read-only one too: the consumer's lock, taken
 * at its first commit here, makes this opener its one writer until the directory closes.
 */
import type { Storage } from "../../storage/storage.js";
import { checkConsumerName, Consumer, corruptPositions } from "./consumer.js";
import { PositionStore } from "../checkpoints/consumer-positions.js";
import { corruptConsumerFile } from "../checkpoints/consumer-files.js";
import type { PositionsRead } from "../checkpoints/consumer-files.js";

/** What the open read: the directory-wide file, and each consumer's own file by name. */
export interface ConsumersRead {
  readonly legacy: PositionsRead;
  readonly own: ReadonlyMap<string, PositionsRead>;
}

export class DirConsumers {
  readonly #storage: Storage;
  readonly #read: ConsumersRead;
  readonly #stores = new Map<string, PositionStore>();
  readonly #consumers = new Map<string, Consumer>();
  readonly #check: (op: "commit" | "read") => void;
  /** The logs opened so far and their end then: a store made later learns of them too. */
  readonly #opened = new Map<string, number>();

  /** `checkOpen` throws if the directory is closing or closed. */
  constructor(storage: Storage, read: ConsumersRead, checkOpen: () => void) {
    this.#storage = storage;
    this.#read = read;
    this.#check = () => checkOpen();
  }

  /** The consumer `name`: the same object for the same name. */
  get(name: string): Consumer {
    checkConsumerName(name);
    this.#check("read");
    let consumer = this.#consumers.get(name);
    if (consumer === undefined) {
      consumer = new Consumer(name, { store: this.#storeOf(name), check: this.#check });
      this.#consumers.set(name, consumer);
    }
    return consumer;
  }

  /** The consumer's positions: its own file if it has one, else its entries of the directory-wide file. */
  #storeOf(name: string): PositionStore {
    const own = this.#read.own.get(name);
    if (own?.state === "malformed") throw corruptConsumerFile(name, own.reason);
    let positions = own?.positions;
    if (positions === undefined) {
      const legacy = this.#read.legacy;
      if (legacy.state === "malformed") throw corruptPositions(legacy.reason);
      positions = new Map([...legacy.positions].filter(([key]) => key.startsWith(`${name} `)));
    }
    const store = new PositionStore(this.#storage, name, positions);
    for (const [partition, end] of this.#opened) store.logOpened(partition, end);
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
    await Promise.allSettled([...this.#stores.values()].map((store) => store.drain()));
    const released = await Promise.allSettled([...this.#stores.values()].map((store) => store.release()));
    const failed = released.find((r): r is PromiseRejectedResult => r.status === "rejected");
    if (failed !== undefined) throw failed.reason;
  }
}
