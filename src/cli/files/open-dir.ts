/**
 * Opening what the user named on the command line for reading, through `FsStorage` (so the
 * tools read files exactly as the log does). `FsStorage.open` creates a missing root, so the path
 * is checked with `node:fs` first: a typo must be an error, never a new empty directory.
 */
import { stat } from "node:fs/promises";
import { basename, dirname, resolve } from "node:path";
import { FsStorage } from "../../storage/fs-storage.js";
import { UsageError } from "../terminal/io.js";

interface Target {
  /** Storage rooted at the directory (or at the file's directory). */
  readonly storage: FsStorage;
  /** "dir": the root itself; "file": `name` inside the root. */
  readonly kind: "dir" | "file";
  /** The file's name, when kind is "file". */
  readonly name: string;
  /** The absolute path, for messages. */
  readonly path: string;
}

export async function openTarget(path: string): Promise<Target> {
  const absolute = resolve(path);
  let kind: "dir" | "file";
  try {
    const s = await stat(absolute);
    if (s.isDirectory()) kind = "dir";
    else if (s.isFile()) kind = "file";
    else throw new UsageError(`${path} is neither a file nor a directory`);
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(`cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  const storage = await FsStorage.open(kind === "dir" ? absolute : dirname(absolute));
  return { storage, kind, name: kind === "dir" ? "" : basename(absolute), path: absolute };
}
