/*
 * Kafka's `cleaner-offset-checkpoint`: per partition, the clean point (the first offset the log
 * cleaner has not cleaned yet). Same name and text format as Kafka's (version 0, a count, then
 * `topic partition offset` lines), in the log directory's root, written as the other checkpoints
 * are: `<name>.tmp`, fsynced, renamed, the root fsynced.
 *
 * Besides telling the cleaner where the dirty part starts, the clean point is what makes offset
 * gaps legal: below it, and only there, batches may skip offsets (see docs/compaction.md).
 */
import { type CheckpointEntry, encodeCheckpoint } from "../../format/checkpoint.js";
import type { Storage } from "../../storage/storage.js";
import { writeFileAtomically } from "./checkpoint-files.js";
import { parsePartitionName } from "./partition-names.js";
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
      const entries: CheckpointEntry[] = [];
      for (const [n, o] of [...this.#points].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
        const parsed = parsePartitionName(n);
        if (parsed !== undefined && (n === name || this.#keep(n))) entries.push({ ...parsed, offset: o });
      }
      await writeFileAtomically(this.#storage, CLEANER_CHECKPOINT, new TextEncoder().encode(encodeCheckpoint(entries)));
      // The rename is durable only with the root's entries: until then a crash could bring the old clean point back.
      await this.#storage.syncDir("");
    });
  }
}
