/** Reading into the caller's buffer: a file's own `readInto` when it has one, else `read` and a copy. */
import type { StorageFile } from "./storage.js";

/** Reads up to `target.length` bytes at `position` into `target`; resolves with how many. */
export async function readInto(file: StorageFile, position: number, target: Uint8Array): Promise<number> {
  if (typeof file.readInto === "function") return file.readInto(position, target);
  const bytes = await file.read(position, target.length);
  target.set(bytes);
  return bytes.length;
}
