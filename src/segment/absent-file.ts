/*
 * A `StorageFile` for a segment file that is not there, in a read-only open: it reads as an
 * empty file and refuses every write. A read-only open creates nothing, so a missing index is
 * rebuilt in memory instead (and a segment a writer has not created yet reads as empty).
 */
import { ErrorCode, PagelogError } from "../errors.js";
import type { StorageFile } from "../storage/storage.js";

export function absentFile(path: string): StorageFile {
  const refuse = (op: string) => async (): Promise<never> => {
    throw new PagelogError(`${op} ${path}: the file was opened read-only`, ErrorCode.READ_ONLY, { path });
  };
  return {
    path,
    size: async () => 0,
    read: async () => new Uint8Array(0),
    write: refuse("write"),
    truncate: refuse("truncate"),
    sync: refuse("sync"),
    close: async () => undefined,
  };
}
