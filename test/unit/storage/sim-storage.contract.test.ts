import { describe, it } from "vitest";
import { storageContract } from "../../../src/testing/storage-contract.js";
import { SimStorage } from "../../../src/storage/sim-storage.js";

// The simulator must keep every promise the real file system keeps while the power is on.
storageContract("SimStorage", () => new SimStorage({ seed: 1 }), { describe, it });
storageContract(
  "SimStorage (64-byte pages, random write-back)",
  () => new SimStorage({ seed: 2, pageSize: 64, sectorSize: 16, writeback: 0.5 }),
  { describe, it },
);
