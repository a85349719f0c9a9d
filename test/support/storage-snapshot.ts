/**
 * Every entry of a Storage, with each file's bytes: what "an open that rejects changes no byte
 * of any file" is checked against (names, sizes and contents, directories included).
 */
import type { Storage } from "../../src/storage/storage.js";

export type StorageSnapshot = Record<string, string>;

export async function snapshotStorage(storage: Storage, dir = ""): Promise<StorageSnapshot> {
  const out: StorageSnapshot = {};
  for (const name of await storage.list(dir)) {
    const path = dir === "" ? name : `${dir}/${name}`;
    const stat = await storage.stat(path);
    if (stat?.kind === "dir") {
      out[`${path}/`] = "dir";
      Object.assign(out, await snapshotStorage(storage, path));
    } else if (stat !== null) {
      const file = await storage.open(path, { readOnly: true });
      try {
        out[path] = Buffer.from(await file.read(0, stat.size)).toString("hex");
      } finally {
        await file.close();
      }
    }
  }
  return out;
}
