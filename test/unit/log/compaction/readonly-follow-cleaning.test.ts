/**
 * A read-only follower while its writer cleans (issue 22, Deliver 5): another LogDir on the same
 * files (a shared SimStorage, and FsStorage on a temp dir) runs `compact()`, which replaces a
 * segment under the same base-offset name and, grouping, removes segments from the middle of the
 * listing. The reader keeps handing out only records that were appended, each at its own offset,
 * in increasing order, never one twice; records the cleaner removed before it reached them may
 * simply not be seen. After a refresh it reads the log as the cleaner left it.
 */
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as nodePath from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { LogDir } from "../../../../src/log/log-dir.js";
import type { Log, LogRecord } from "../../../../src/log/log.js";
import { FsStorage } from "../../../../src/storage/fs-storage.js";
import { SimStorage } from "../../../../src/storage/sim-storage.js";
import type { Storage } from "../../../../src/storage/storage.js";
import { ErrorCode } from "../../../../src/errors.js";
import { NAME, expectCode, plain, readAll, type PlainRecord } from "../helpers.js";

// Each test places its cleanings (compact()) against the reader's steps: none in the background.
const SMALL = { cleanupPolicy: "compact", segmentBytes: 300, backgroundCleaning: false } as const;
/** The writer reopened with room to group the small segments into one (Kafka's groupSegmentsBySize). */
const LARGE = { cleanupPolicy: "compact", segmentBytes: 3000, backgroundCleaning: false } as const;

type Appended = Map<number, PlainRecord>;

/** Appends `n` records over three keys (and every seventh a key of its own), flushed; notes each. */
async function fill(log: Log, n: number, appended: Appended): Promise<void> {
  for (let i = 0; i < n; i++) {
    const o = log.endOffset;
    const key = o % 7 === 3 ? `u${o}` : `k${o % 3}`;
    await log.append([{ key, value: `v${o}`, timestamp: 1000 + o }]);
    appended.set(o, { offset: o, timestamp: 1000 + o, key, value: `v${o}`, headers: [] });
  }
  await log.flush();
}

/** Every record seen was appended at its offset, and offsets strictly increase (so none twice). */
function checkSeen(seen: readonly PlainRecord[], appended: Appended): void {
  seen.forEach((r, i) => {
    expect(r).toEqual(appended.get(r.offset));
    if (i > 0) expect(r.offset).toBeGreaterThan(seen[i - 1]!.offset);
  });
}

const temps: string[] = [];
afterEach(async () => {
  for (const d of temps.splice(0)) await fs.rm(d, { recursive: true, force: true });
});

type Kind = "sim" | "fs";

/** Two storages on the same files: one for the writer(s), one for the reader (another process). */
async function storages(kind: Kind, seed: number): Promise<{ ws: Storage; rs: Storage }> {
  if (kind === "sim") {
    const sim = new SimStorage({ seed });
    return { ws: sim, rs: sim };
  }
  const root = await fs.mkdtemp(nodePath.join(os.tmpdir(), "pagelog-rofollow-"));
  temps.push(root);
  return { ws: await FsStorage.open(root), rs: await FsStorage.open(root) };
}

async function writer(ws: Storage, options: typeof SMALL | typeof LARGE): Promise<{ w: LogDir; log: Log }> {
  const w = await LogDir.open(ws, { checkpointIntervalMs: -1 });
  return { w, log: await w.log(NAME, options) };
}

async function reader(rs: Storage): Promise<{ r: LogDir; ro: Log }> {
  const r = await LogDir.open(rs, { readOnly: true, pollMs: 2 });
  return { r, ro: await r.log(NAME) };
}

/** Reads `n` more records from `it`. */
async function take(it: AsyncGenerator<LogRecord>, n: number, into: PlainRecord[]): Promise<void> {
  for (let i = 0; i < n; i++) into.push(plain((await it.next()).value as LogRecord));
}

describe.each(["sim", "fs"] as const)("a read-only follower while the writer cleans (%s)", (kind: Kind) => {
  it("a reader that read everything sees each segment replaced under its own name", async () => {
    const { ws, rs } = await storages(kind, 3);
    const { w, log } = await writer(ws, SMALL);
    const appended: Appended = new Map();
    await fill(log, 60, appended);
    await w.checkpoint();
    const { r, ro } = await reader(rs);
    expect(await readAll(ro)).toEqual(await readAll(log));
    const bases = log.segmentBaseOffsets;
    const result = await log.compact();
    expect(result.recordsAfter).toBeLessThan(result.recordsBefore);
    expect(log.segmentBaseOffsets).toEqual(bases); // no grouping: each cleaned under its own name
    await fill(log, 10, appended);
    await ro.refresh();
    const left = await readAll(log);
    expect(await readAll(ro)).toEqual(left);
    expect(ro.segmentBaseOffsets).toEqual(log.segmentBaseOffsets);
    await r.close();
    await w.close();
  });

  it("segments grouped away from the middle of the listing: idle and loaded ones", async () => {
    const { ws, rs } = await storages(kind, 4);
    const first = await writer(ws, SMALL);
    const appended: Appended = new Map();
    await fill(first.log, 60, appended);
    await first.w.checkpoint();
    await first.w.close();
    const { r, ro } = await reader(rs);
    // The reader loads a few segments of the middle and leaves the others idle.
    const some: PlainRecord[] = [];
    for await (const rec of ro.records({ from: 20, to: 30 })) some.push(plain(rec));
    checkSeen(some, appended);
    const { w, log } = await writer(ws, LARGE);
    const before = log.segmentBaseOffsets.length;
    await log.compact();
    expect(log.segmentBaseOffsets.length).toBeLessThan(before - 2);
    await fill(log, 5, appended);
    // Before any refresh: a read meets the cleaned files and still gives appended records.
    const early = await readAll(ro);
    checkSeen(early, appended);
    await ro.refresh();
    const left = await readAll(log);
    expect(await readAll(ro)).toEqual(left);
    expect(ro.segmentBaseOffsets).toEqual(log.segmentBaseOffsets);
    await r.close();
    await w.close();
  });

  it("a follower half way through the log goes on, in order, none twice, to the new appends", async () => {
    const { ws, rs } = await storages(kind, 5);
    const first = await writer(ws, SMALL);
    const appended: Appended = new Map();
    await fill(first.log, 60, appended);
    await first.w.checkpoint();
    await first.w.close();
    const { r, ro } = await reader(rs);
    const follower = ro.records({ follow: true });
    const seen: PlainRecord[] = [];
    await take(follower, 25, seen);
    const { w, log } = await writer(ws, LARGE);
    await log.compact();
    await fill(log, 10, appended);
    const end = log.endOffset;
    while (seen[seen.length - 1]!.offset < end - 1) await take(follower, 1, seen);
    checkSeen(seen, appended);
    // Every record still in the log past what the follower had read (or read ahead) is handed out.
    const got = new Set(seen.map((s) => s.offset));
    for (const rec of await readAll(log)) if (rec.offset >= 40) expect(got.has(rec.offset)).toBe(true);
    await follower.return();
    await r.close();
    await w.close();
  });

  it("a reader behind the cleaner (its last segments cleaned and grouped) catches up", async () => {
    const { ws, rs } = await storages(kind, 6);
    const first = await writer(ws, SMALL);
    const appended: Appended = new Map();
    await fill(first.log, 12, appended);
    await first.w.checkpoint();
    const { r, ro } = await reader(rs);
    const follower = ro.records({ follow: true });
    const seen: PlainRecord[] = [];
    await take(follower, 12, seen);
    await fill(first.log, 60, appended);
    await first.w.close();
    const { w, log } = await writer(ws, LARGE);
    await log.compact();
    await fill(log, 5, appended);
    const end = log.endOffset;
    while (seen[seen.length - 1]!.offset < end - 1) await take(follower, 1, seen);
    checkSeen(seen, appended);
    await ro.refresh();
    expect(await readAll(ro)).toEqual(await readAll(log));
    await follower.return();
    await r.close();
    await w.close();
  });
});

describe("a truncation into the cleaned part is still a cut for a reader", () => {
  it("an iterator past the cut reports PAGELOG_TRUNCATED, not a cleaning's silent skip", async () => {
    const { ws, rs } = await storages("sim", 8);
    const { w, log } = await writer(ws, SMALL);
    const appended: Appended = new Map();
    await fill(log, 60, appended);
    await log.compact();
    await w.checkpoint();
    const { r, ro } = await reader(rs);
    const left = await readAll(log);
    const it = ro.records();
    const seen: PlainRecord[] = [];
    await take(it, left.length - 3, seen);
    const cut = seen[seen.length - 5]!.offset;
    expect(cut).toBeLessThan(log.segmentBaseOffsets[log.segmentBaseOffsets.length - 1]!);
    await log.truncateTo(cut);
    await fill(log, 2, new Map());
    await w.checkpoint();
    await ro.refresh();
    await expectCode(() => it.next(), ErrorCode.TRUNCATED);
    await r.close();
    await w.close();
  });
});
