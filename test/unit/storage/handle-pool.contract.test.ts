/**
 * The pool must be invisible: a HandlePool over either storage keeps every promise of the
 * Storage contract, with bounds so small that nearly every call evicts or reopens a descriptor.
 */
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as nodePath from "node:path";
import { describe, it } from "vitest";
import { storageContract } from "../../../src/testing/storage-contract.js";
import { FsStorage } from "../../../src/storage/fs-storage.js";
import { HandlePool } from "../../../src/storage/handle-pool.js";
import { SimStorage } from "../../../src/storage/sim-storage.js";

for (const maxOpenFiles of [1, 2]) {
  storageContract(
    `HandlePool(SimStorage), maxOpenFiles ${maxOpenFiles}`,
    () => new HandlePool(new SimStorage({ seed: 1 }), { maxOpenFiles }),
    { describe, it },
  );
  storageContract(
    `HandlePool(FsStorage), maxOpenFiles ${maxOpenFiles}`,
    async () => {
      const root = await fs.mkdtemp(nodePath.join(os.tmpdir(), "pagelog-pool-contract-"));
      return {
        storage: new HandlePool(await FsStorage.open(root), { maxOpenFiles }),
        cleanup: () => fs.rm(root, { recursive: true, force: true }),
      };
    },
    { describe, it },
  );
}
