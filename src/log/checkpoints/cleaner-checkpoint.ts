/*
 * Kafka's `cleaner-offset-checkpoint`: per partition, the clean point (the first offset the log
 * cleaner has not cleaned yet). Same name and text format as Kafka's (version 0, a count, then
 * `topic partition offset` lines), in the log directory's root, written as the other checkpoints
 * are: `<name>.tmp`, fsynced, renamed, the root fsynced.
 *
 * Besides telling the cleaner where the dirty part starts, the clean point is what makes offset
 * gaps legal: below it, and only there, batches may skip offsets (see docs/compaction.md).
 */
import type { Storage } from "../../storage/storage.js";
import { writeCheckpoint } from "./checkpoint-files.js";
import { SerialQueue } from "../util/serial-queue.js";

/** Kafka's file name. */
export const CLEANER_CHECKPOINT = "cleaner-offset-checkpoint";

/** The clean points of a log directory: read at open, written durably after each cleaning. */
export class CleanerCheckpoint {
  readonly #storage: Storage;
  readonly #points: Map<string, number>;
  readonly #keep: (name: string) => boolean;
  readonly #queue = new SerialQueue();

  /** `keep` says which names a write carries forward (those there at open or opened since, as the other checkpoints do). */
  constructor(storage: Storage, points: Map<string, number>, keep: (name: string) => boolean) {
    this.#storage = storage;
    this.#points = points;
    this.#keep = keep;
  }

  /** The checkpointed clean point of `name`, if any. */
  get(name: string): number | undefined {
    return this.#points.get(name);
  }

  /** Records `name`'s clean point and writes the file durably before resolving. */
  set(name: string, offset: number): Promise<void> {
    return this.#queue.run(async () => {
      this.#points.set(name, offset);
      await writeCheckpoint(this.#storage, CLEANER_CHECKPOINT, this.#points, (n) => n === name || this.#keep(n));
      // The rename is durable only with the root's entries: until then a crash could bring the old clean point back.
      await this.#storage.syncDir("");
    });
  }
}
