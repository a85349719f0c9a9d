/**
 * A Storage that counts the syncs going through it: every opened file's `sync()` and the
 * storage's `syncDir()`. `durable-append` opens its LogDir over one to report fsyncs per append.
 * Built on the testing layer's HookedStorage, which sees every call.
 */
import type { Storage } from "../storage/storage.js";
import { HookedStorage } from "../testing/hooked-storage.js";

export class CountingStorage extends HookedStorage {
  readonly #counts: { file: number; dir: number };

  constructor(inner: Storage) {
    const counts = { file: 0, dir: 0 };
    super(inner, (op, run) => {
      if (op.kind === "sync") counts.file++;
      else if (op.kind === "syncDir") counts.dir++;
      return run();
    });
    this.#counts = counts;
  }

  /** File syncs (fsync / fdatasync) so far. */
  get fileSyncs(): number {
    return this.#counts.file;
  }

  /** Directory syncs so far. */
  get dirSyncs(): number {
    return this.#counts.dir;
  }

  get syncs(): number {
    return this.#counts.file + this.#counts.dir;
  }
}
