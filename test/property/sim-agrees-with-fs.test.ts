/**
 * Property: with the power on, SimStorage behaves exactly like the real file system. For random
 * sequences of operations, both return identical reads, sizes, listings, stats and error codes.
 * (If the simulator drifted from the real thing, crash proofs on it would prove nothing.)
 * Seeded from PAGELOG_SEED (test/support/seed.ts): a failure prints the command that replays it.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, it } from "vitest";
import { fastCheckParams } from "../support/seed.js";
import { PagelogError } from "../../src/errors.js";
import { FsStorage } from "../../src/storage/fs-storage.js";
import { SimStorage } from "../../src/storage/sim-storage.js";
import type { Storage, StorageFile } from "../../src/storage/storage.js";

const PATHS = ["a", "b", "d/x", "d/y", "d"];
const path = fc.constantFrom(...PATHS);

type Op =
  | { kind: "open"; path: string; create: boolean }
  | { kind: "write"; path: string; position: number; length: number; byte: number }
  | { kind: "read"; path: string; position: number; length: number }
  | { kind: "truncate"; path: string; length: number }
  | { kind: "size" | "sync" | "stat" | "remove" | "mkdir"; path: string }
  | { kind: "list" | "syncDir"; dir: string }
  | { kind: "rename"; from: string; to: string };

const pos = fc.integer({ min: 0, max: 9000 });
const len = fc.integer({ min: 0, max: 5000 });
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant("open" as const), path, create: fc.boolean() }),
  fc.record({
    kind: fc.constant("write" as const),
    path,
    position: pos,
    length: len,
    byte: fc.integer({ min: 0, max: 255 }),
  }),
  fc.record({
    kind: fc.constant("write" as const),
    path,
    position: pos,
    length: len,
    byte: fc.integer({ min: 0, max: 255 }),
  }),
  fc.record({ kind: fc.constant("read" as const), path, position: pos, length: len }),
  fc.record({ kind: fc.constant("truncate" as const), path, length: pos }),
  fc.record({
    kind: fc.constantFrom("size" as const, "sync" as const, "stat" as const, "remove" as const, "mkdir" as const),
    path,
  }),
  fc.record({ kind: fc.constantFrom("list" as const, "syncDir" as const), dir: fc.constantFrom("", "d", "a") }),
  fc.record({ kind: fc.constant("rename" as const), from: path, to: path }),
);

/** Runs one op against one storage and describes the outcome as a comparable string. */
async function apply(storage: Storage, handles: Map<string, StorageFile>, o: Op): Promise<string> {
  try {
    const handle = async (p: string) => {
      let h = handles.get(p);
      if (h === undefined) {
        h = await storage.open(p);
        handles.set(p, h);
      }
      return h;
    };
    switch (o.kind) {
      case "open": {
        const h = await storage.open(o.path, { create: o.create });
        await handles.get(o.path)?.close();
        handles.set(o.path, h);
        return "opened";
      }
      case "write":
        await (await handle(o.path)).write(o.position, new Uint8Array(o.length).fill(o.byte));
        return "written";
      case "read": {
        const bytes = await (await handle(o.path)).read(o.position, o.length);
        return `read ${bytes.length} ${Buffer.from(bytes).toString("base64")}`;
      }
      case "truncate":
        await (await handle(o.path)).truncate(o.length);
        return "truncated";
      case "size":
        return `size ${await (await handle(o.path)).size()}`;
      case "sync":
        await (await handle(o.path)).sync();
        return "synced";
      case "stat":
        return `stat ${JSON.stringify(await storage.stat(o.path))}`;
      case "remove":
        await storage.remove(o.path);
        return "removed";
      case "mkdir":
        await storage.mkdir(o.path);
        return "made";
      case "list":
        return `list ${(await storage.list(o.dir)).join(",")}`;
      case "syncDir":
        await storage.syncDir(o.dir);
        return "dir synced";
      case "rename":
        await storage.rename(o.from, o.to);
        return "renamed";
    }
  } catch (err) {
    if (err instanceof PagelogError) return `error ${err.code}`;
    if (err instanceof TypeError || err instanceof RangeError) return `error ${err.name}`;
    throw err;
  }
}

describe("property: SimStorage agrees with FsStorage while the power is on", () => {
  it("identical reads, sizes, listings, stats and error codes for random operation sequences", async () => {
    const params = fastCheckParams();
    const base = await mkdtemp(join(tmpdir(), "pagelog-agree-"));
    let run = 0;
    try {
      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 0, max: 2 ** 31 - 1 }),
          fc.array(op, { minLength: 1, maxLength: 40, size: "max" }),
          async (simSeed, ops) => {
            const fsStorage = await FsStorage.open(join(base, String(run++)));
            const sim = new SimStorage({ seed: simSeed, pageSize: 512, sectorSize: 128, writeback: 0.3 });
            const fsHandles = new Map<string, StorageFile>();
            const simHandles = new Map<string, StorageFile>();
            try {
              // Start from a populated tree, so that most operations act on something.
              const setup: Op[] = [
                { kind: "mkdir", path: "d" },
                { kind: "open", path: "a", create: true },
                { kind: "open", path: "d/x", create: true },
              ];
              for (const [i, o] of [...setup, ...ops].entries()) {
                const real = await apply(fsStorage, fsHandles, o);
                const simulated = await apply(sim, simHandles, o);
                if (real !== simulated) {
                  throw new Error(
                    `op ${i} ${JSON.stringify(o)}: FsStorage says "${real.slice(0, 120)}", SimStorage says "${simulated.slice(0, 120)}"`,
                  );
                }
              }
            } finally {
              await fsStorage.close();
            }
          },
        ),
        { ...params, numRuns: 150 },
      );
    } finally {
      await rm(base, { recursive: true, force: true });
    }
  });
});
