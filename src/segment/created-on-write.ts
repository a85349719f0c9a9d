/**
 * A `StorageFile` for a file that does not exist yet and is created only when something is
 * written to it. Opening a segment whose index files were lost must not create them: the open
 * may still reject the log, and an open that rejects changes nothing on disk. Until the first
 * write or truncation it reads as an empty file.
 */
import type { Storage, StorageFile } from "../storage/storage.js";

export function createdOnWrite(storage: Storage, path: string): StorageFile {
  let real: StorageFile | undefined;
  let closed = false;
  const created = async (): Promise<StorageFile> => (real ??= await storage.open(path, { create: true }));
  return {
    path,
    size: async () => (real === undefined ? 0 : real.size()),
    read: async (position, length) => (real === undefined ? new Uint8Array(0) : real.read(position, length)),
    write: async (position, bytes) => (await created()).write(position, bytes),
    truncate: async (length) => (await created()).truncate(length),
    // Nothing written yet means nothing to make durable.
    sync: async () => (real === undefined ? undefined : real.sync()),
    close: async () => {
      if (closed) return;
      closed = true;
      await real?.close();
    },
  };
}
