import { storageContract } from "../../../src/testing/storage-contract.js";
import { SimStorage } from "../../../src/storage/sim-storage.js";

// The simulator must keep every promise the real file system keeps while the power is on.
storageContract("SimStorage", async () => ({ storage: new SimStorage({ seed: 1 }) }));
storageContract("SimStorage (64-byte pages, random write-back)", async () => ({
  storage: new SimStorage({ seed: 2, pageSize: 64, sectorSize: 16, writeback: 0.5 }),
}));
