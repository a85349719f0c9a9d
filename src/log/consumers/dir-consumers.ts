/*
 * A LogDir's consumers: the position store (or why the file read at open is not one), the
 * Consumer objects by name, and the checks their calls go through (closed, read-only).
 */
import { ErrorCode, PagelogError } from "../../errors.js";
import type { Storage } from "../../storage/storage.js";
import { checkConsumerName, Consumer, corruptPositions } from "./consumer.js";
import { PositionStore, type PositionsRead } from "../checkpoints/consumer-positions.js";

export class DirConsumers {
  /** The positions, or why the file read at open is not one (every `get` then refuses). */
  readonly #store: PositionStore | string;
  readonly #consumers = new Map<string, Consumer>();
  readonly #check: (op: "commit" | "read") => void;

  /** `checkOpen` throws if the directory is closing or closed; a read-only one refuses commits. */
  constructor(storage: Storage, read: PositionsRead, checkOpen: () => void, readOnly: boolean) {
    this.#store = read.state === "ok" ? new PositionStore(storage, read.positions) : read.reason;
    this.#check = (op) => {
      checkOpen();
      if (op === "commit" && readOnly)
        throw new PagelogError("the log directory was opened read-only (commit)", ErrorCode.READ_ONLY);
    };
  }

  /** The consumer `name`: the same object for the same name. */
  get(name: string): Consumer {
    checkConsumerName(name);
    this.#check("read");
    const store = this.#store;
    if (typeof store === "string") throw corruptPositions(store);
    let consumer = this.#consumers.get(name);
    if (consumer === undefined) {
      consumer = new Consumer(name, { store, check: this.#check });
      this.#consumers.set(name, consumer);
    }
    return consumer;
  }

  /** A log was opened: positions past its end are `ahead-of-log` until committed again. */
  logOpened(partition: string, end: number): void {
    if (typeof this.#store !== "string") this.#store.logOpened(partition, end);
  }

  /** Resolves when every commit made so far has been written (or has failed). */
  async drain(): Promise<void> {
    if (typeof this.#store !== "string") await this.#store.drain();
  }
}
