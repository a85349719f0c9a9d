/**
 * Property: whatever SimStorage's crash() leaves is something a real disk could hold.
 *
 * An independent reference model tracks, per file, every version of its content since the last
 * successful sync (each version read as zero-padded), and per directory every set of entries
 * since the last syncDir. After a crash:
 * - the directory listing equals one of the directory's states since its last syncDir;
 * - each file's size is its last synced size or its latest cached size;
 * - every sector of every file equals that sector in ONE version: sectors are atomic, and no byte
 *   can come from nowhere.
 * Seeded from PAGELOG_SEED (test/support/seed.ts): a failure prints the command that replays it.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fastCheckParams } from "../support/seed.js";
import { SimStorage } from "../../src/storage/sim-storage.js";

const PAGE = 64;
const SECTOR = 16;
const NAMES = ["a", "b"];

type Op =
  | { kind: "create"; name: string }
  | { kind: "write"; name: string; position: number; length: number; byte: number }
  | { kind: "truncate"; name: string; length: number }
  | { kind: "sync"; name: string }
  | { kind: "syncDir" }
  | { kind: "remove"; name: string }
  | { kind: "rename"; from: string; to: string }
  | { kind: "writeback"; pages: number };

const name = fc.constantFrom(...NAMES);
const op: fc.Arbitrary<Op> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant("create" as const), name }), weight: 2 },
  {
    arbitrary: fc.record({
      kind: fc.constant("write" as const),
      name,
      position: fc.integer({ min: 0, max: 5 * PAGE }),
      length: fc.integer({ min: 1, max: 2 * PAGE }),
      byte: fc.integer({ min: 1, max: 255 }),
    }),
    weight: 6,
  },
  {
    arbitrary: fc.record({
      kind: fc.constant("truncate" as const),
      name,
      length: fc.integer({ min: 0, max: 6 * PAGE }),
    }),
    weight: 3,
  },
  { arbitrary: fc.record({ kind: fc.constant("sync" as const), name }), weight: 2 },
  { arbitrary: fc.constant({ kind: "syncDir" as const }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant("remove" as const), name }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant("rename" as const), from: name, to: name }), weight: 1 },
  {
    arbitrary: fc.record({ kind: fc.constant("writeback" as const), pages: fc.integer({ min: 1, max: 4 }) }),
    weight: 2,
  },
);

/** The reference model of one file: every content it may hold on disk after a crash. */
class RefFile {
  cached = new Uint8Array(0);
  syncedSize = 0;
  /** Versions since the last successful sync, the synced one first. */
  versions: Uint8Array[] = [new Uint8Array(0)];

  record(): void {
    this.versions.push(this.cached.slice());
  }
  sync(): void {
    this.syncedSize = this.cached.length;
    this.versions = [this.cached.slice()];
  }
}

function sectorOf(bytes: Uint8Array, start: number, end: number): Uint8Array {
  const out = new Uint8Array(end - start);
  out.set(bytes.subarray(start, Math.min(end, bytes.length)));
  return out;
}

const equal = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((x, i) => x === b[i]);

async function runAndCheck(seed: number, ops: Op[]): Promise<void> {
  const sim = new SimStorage({ seed, pageSize: PAGE, sectorSize: SECTOR });
  let dir = new Map<string, RefFile>();
  let dirHistory: Array<Map<string, RefFile>> = [new Map()];
  const touchDir = () => dirHistory.push(new Map(dir));
  // Every run starts with its files in place, so that most operations act on something.
  ops = [...NAMES.map((n): Op => ({ kind: "create", name: n })), ...ops];

  for (const o of ops) {
    switch (o.kind) {
      case "create":
        if (!dir.has(o.name)) {
          await (await sim.open(o.name, { create: true })).close();
          dir.set(o.name, new RefFile());
          touchDir();
        }
        break;
      case "write": {
        const ref = dir.get(o.name);
        if (ref === undefined) break;
        const f = await sim.open(o.name);
        await f.write(o.position, new Uint8Array(o.length).fill(o.byte));
        await f.close();
        const next = new Uint8Array(Math.max(ref.cached.length, o.position + o.length));
        next.set(ref.cached);
        next.fill(o.byte, o.position, o.position + o.length);
        ref.cached = next;
        ref.record();
        break;
      }
      case "truncate": {
        const ref = dir.get(o.name);
        if (ref === undefined) break;
        const f = await sim.open(o.name);
        await f.truncate(o.length);
        await f.close();
        const next = new Uint8Array(o.length);
        next.set(ref.cached.subarray(0, o.length));
        ref.cached = next;
        ref.record();
        break;
      }
      case "sync": {
        const ref = dir.get(o.name);
        if (ref === undefined) break;
        const f = await sim.open(o.name);
        await f.sync();
        await f.close();
        ref.sync();
        break;
      }
      case "syncDir":
        await sim.syncDir("");
        dirHistory = [new Map(dir)];
        break;
      case "remove":
        if (dir.has(o.name)) {
          await sim.remove(o.name);
          dir.delete(o.name);
          touchDir();
        }
        break;
      case "rename": {
        const ref = dir.get(o.from);
        if (ref === undefined || o.from === o.to) break;
        await sim.rename(o.from, o.to);
        dir.delete(o.from);
        dir.set(o.to, ref);
        touchDir();
        break;
      }
      case "writeback":
        sim.writeback({ pages: o.pages });
        break;
    }
  }
  dir = new Map(dir);

  const after = sim.crash();
  const listing = await after.list("");
  const contents = new Map<string, Uint8Array>();
  for (const n of listing) {
    const f = await after.open(n);
    contents.set(n, await f.read(0, await f.size()));
  }

  const problems: string[] = [];
  const fits = dirHistory.some((state) => {
    if ([...state.keys()].sort().join() !== listing.join()) return false;
    return listing.every((n) => {
      const ref = state.get(n)!;
      const bytes = contents.get(n)!;
      if (bytes.length !== ref.syncedSize && bytes.length !== ref.cached.length) {
        problems.push(`${n}: size ${bytes.length} is neither synced ${ref.syncedSize} nor cached ${ref.cached.length}`);
        return false;
      }
      for (let s = 0; s < bytes.length; s += SECTOR) {
        const end = Math.min(s + SECTOR, bytes.length);
        const got = bytes.subarray(s, end);
        if (!ref.versions.some((v) => equal(sectorOf(v, s, end), got))) {
          problems.push(`${n}: sector at ${s} = ${Buffer.from(got).toString("hex")} is in no version`);
          return false;
        }
      }
      return true;
    });
  });
  if (!fits) {
    throw new Error(
      `crash left a state the model does not allow (seed ${seed}): listing [${listing.join(",")}]; ${problems.slice(0, 3).join("; ")}`,
    );
  }
}

describe("property: SimStorage crash states are ones a real disk allows", () => {
  it("every file is, sector by sector, a version since its last sync; every listing a state since the last syncDir", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 2 ** 31 - 1 }),
        fc.array(op, { minLength: 5, maxLength: 60, size: "max" }),
        runAndCheck,
      ),
      { ...fastCheckParams(), numRuns: 1500 },
    );
  });

  it("the check bites: a sector mixing two versions is rejected", () => {
    const ref = new RefFile();
    ref.cached = new Uint8Array(SECTOR).fill(1);
    ref.record();
    const mixed = new Uint8Array(SECTOR).fill(1);
    mixed[3] = 2;
    expect(ref.versions.some((v) => equal(sectorOf(v, 0, SECTOR), mixed))).toBe(false);
  });
});
