/**
 * Reading files for the tools through a `Storage` (any: the fs one in the CLI, the simulator in
 * the demo): a bounded read for files that should be small, and a read-ahead source for the
 * batch walker. No `node:`: the opening of a path the user typed stays in src/cli/files/open-dir.ts.
 */
import type { Storage, StorageFile } from "../storage/storage.js";

/** The first bytes of a file, at most a bound, and the file's whole size. */
interface BoundedRead {
  /** Bytes [0, min(size, maxBytes)). */
  readonly bytes: Uint8Array;
  /** The file's size: more than `bytes.length` when the file was larger than the bound. */
  readonly size: number;
}

/**
 * Reads a file that should be small (an index, a checkpoint) up to `maxBytes`: a damaged or
 * hostile file of gigabytes (a sparse 10 GiB `.timeindex`) costs its first `maxBytes`, never
 * its whole size. The caller reports the rest as not read.
 */
export async function readBounded(storage: Storage, path: string, maxBytes: number): Promise<BoundedRead> {
  const file = await storage.open(path, { readOnly: true });
  try {
    const size = await file.size();
    return { bytes: await file.read(0, Math.min(size, maxBytes)), size };
  } finally {
    await file.close();
  }
}

/** Bytes a walk source reads ahead: one read for many small batches. */
const READ_AHEAD = 1024 * 1024;

/**
 * A file handle as a walk source, reading ahead: a read inside the last 1 MiB fetched is served
 * from it, so a log of small batches costs a read per MiB, not two per batch. Each fetch is a new
 * buffer, so bytes handed out stay valid after later reads; a read larger than the window goes
 * to the file directly.
 */
export async function fileSource(
  file: StorageFile,
): Promise<{ size: number; read: (p: number, n: number) => Promise<Uint8Array> }> {
  const size = await file.size();
  let start = 0;
  let window: Uint8Array = new Uint8Array(0);
  return {
    size,
    read: async (p, n) => {
      if (p >= start && p + n <= start + window.length) return window.subarray(p - start, p - start + n);
      if (n > READ_AHEAD) return file.read(p, n);
      window = await file.read(p, Math.min(READ_AHEAD, Math.max(0, size - p)));
      start = p;
      return window.subarray(0, Math.min(n, window.length));
    },
  };
}
