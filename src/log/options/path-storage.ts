/**
 * How `LogDir.open(path)` turns a path into a Storage. The log layer imports no file system
 * (it runs in a browser): pagelog's Node entry (`src/node.ts`, the `node` export condition of
 * the package root) plugs `FsStorage.open` in here when it loads. Anywhere else a path is a
 * programmer mistake with one fix, passing a Storage, and the error says so.
 */
import type { Storage } from "../../storage/storage.js";

/**
 * Opens a Storage rooted at a directory path: creating it if missing, or with `readOnly`
 * (a read-only LogDir) only if it exists (`PAGELOG_NOT_FOUND`), creating nothing.
 */
type PathStorageOpener = (path: string, options?: { readOnly?: boolean }) => Promise<Storage>;

let opener: PathStorageOpener | undefined;

/** Called once by the Node entry; a later call replaces the opener (both copies are FsStorage.open). */
export function setPathStorageOpener(open: PathStorageOpener): void {
  opener = open;
}

/** The Storage for `LogDir.open(path)`; a TypeError where no file system was plugged in. */
export function openPathStorage(path: string, options: { readOnly?: boolean } = {}): Promise<Storage> {
  if (opener === undefined) {
    throw new TypeError(
      `LogDir.open(${JSON.stringify(path)}): a directory path needs a file system, which only pagelog's Node entry provides; ` +
        'pass a Storage instead, such as new SimStorage() or FsStorage.open(path) from "pagelog/fs" (docs/entry-points.md)',
    );
  }
  return opener(path, options);
}
