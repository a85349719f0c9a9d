/**
 * A log directory as a map of paths to bytes: the pristine directory of the hostile-files sweep,
 * loaded into a fresh SimStorage per case, hashed before and after an open, and a Storage
 * wrapper that catches reads asking for more bytes than the file holds.
 */
import { createHash } from "node:crypto";
import { LogDir, PagelogError, SimStorage } from "../../../src/node.js";
import type { LogOptions, RecordInput, Storage, StorageFile } from "../../../src/node.js";

/** Path → bytes, or "dir". Paths are relative to the log directory, with "/" separators. */
export type Tree = Map<string, Uint8Array | "dir">;

export const PARTITION = "hostile-0";
export const OTHER = "other-1";
export const MARKER = ".kafka_cleanshutdown";
export const RECOVERY_CHECKPOINT = "recovery-point-offset-checkpoint";
export const START_CHECKPOINT = "log-start-offset-checkpoint";
export const LOCK = ".lock";
export const LOG_OPTIONS: LogOptions = { segmentBytes: 600, indexIntervalBytes: 100 };

export { plain, type PlainRecord as Plain } from "../../support/plain-record.js";
import { plain, type PlainRecord as Plain } from "../../support/plain-record.js";

/** The records of batch `b` of the pristine log, the first at `offset`. */
function batchRecords(b: number, offset: number): RecordInput[] {
  const records: RecordInput[] = [];
  for (let i = 0; i < 1 + (b % 3); i++, offset++) {
    records.push({
      key: offset % 4 === 0 ? null : `k${offset}`,
      value: offset % 7 === 5 ? null : `value ${offset} ` + "abcdefghij".repeat(offset % 5),
      headers:
        offset % 3 === 0
          ? [
              { key: "h", value: `x${offset}` },
              { key: "n", value: null },
            ]
          : [],
      // Not monotonic: a later record may be older, so offsetForTimestamp has something to get wrong.
      timestamp: 1_700_000_000_000 + offset * 1000 - (offset % 4 === 3 ? 2500 : 0),
    });
  }
  return records;
}

/**
 * Writes the pristine directory (16 batches of 1–3 records in `hostile-0`, several segments; two
 * records in `other-1`) and closes it cleanly. Returns what `hostile-0` holds.
 */
export async function writePristine(where: string | Storage): Promise<Plain[]> {
  const dir = await LogDir.open(where, { checkpointIntervalMs: -1 });
  const log = await dir.log(PARTITION, LOG_OPTIONS);
  for (let b = 0; b < 16; b++) await log.append(batchRecords(b, log.endOffset));
  const other = await dir.log(OTHER);
  await other.append([
    { key: "a", value: "b" },
    { key: "c", value: "d" },
  ]);
  const records: Plain[] = [];
  for await (const r of log.records()) records.push(plain(r));
  await dir.close();
  return records;
}

/** Every entry under `dir` of a storage, parents first. `.lock` is left out (see hashTree). */
export async function readTree(storage: Storage, dir = ""): Promise<Tree> {
  const out: Tree = new Map();
  const walk = async (rel: string) => {
    for (const name of await storage.list(rel)) {
      const path = rel === "" ? name : `${rel}/${name}`;
      if (path === LOCK) continue;
      const stat = await storage.stat(path);
      if (stat?.kind === "dir") {
        out.set(path, "dir");
        await walk(path);
      } else {
        const file = await storage.open(path, { readOnly: true });
        try {
          out.set(path, await file.read(0, await file.size()));
        } finally {
          await file.close();
        }
      }
    }
  };
  await walk(dir);
  return out;
}

export function cloneTree(tree: Tree): Tree {
  return new Map([...tree].map(([k, v]) => [k, v === "dir" ? v : v.slice()]));
}

/** A fresh SimStorage holding `tree`, every byte and entry durable. */
export async function simOf(tree: Tree, seed = 1): Promise<SimStorage> {
  const sim = new SimStorage({ seed });
  const paths = [...tree.keys()].sort((a, b) => a.split("/").length - b.split("/").length || (a < b ? -1 : 1));
  const dirs = new Set<string>([""]);
  for (const path of paths) {
    const entry = tree.get(path)!;
    if (entry === "dir") {
      await sim.mkdir(path);
      dirs.add(path);
    } else {
      const file = await sim.open(path, { create: true });
      await file.write(0, entry);
      await file.sync();
      await file.close();
    }
  }
  for (const dir of dirs) await sim.syncDir(dir);
  return sim;
}

/**
 * Every name, kind, size and content hash under the directory, one line each, sorted. The
 * `.lock` file is left out: taking and releasing the lock is what an open does (SimStorage even
 * removes the file on release), and it holds no data.
 */
export function hashTree(tree: Tree): string {
  return [...tree]
    .filter(([path]) => path !== LOCK && !path.startsWith(`${LOCK}/`))
    .map(([path, v]) =>
      v === "dir" ? `${path}/ dir` : `${path} ${v.length} ${createHash("sha256").update(v).digest("hex").slice(0, 16)}`,
    )
    .sort()
    .join("\n");
}

/** The lines of two hashTree results that differ, for a failure message. */
export function treeDiff(before: string, after: string): string {
  const a = new Set(before.split("\n"));
  const b = new Set(after.split("\n"));
  return [
    ...[...a].filter((l) => !b.has(l)).map((l) => `- ${l}`),
    ...[...b].filter((l) => !a.has(l)).map((l) => `+ ${l}`),
  ].join("\n");
}

/** Reads that asked for more than the file holds: a storage allocating `length` would allocate that much. */
export interface OverRead {
  path: string;
  position: number;
  length: number;
  size: number;
}

/**
 * Bytes a read may ask for past the end of the file: readers ask for a batch header, a chunk or a
 * bounded prefix (of a checkpoint, say) without knowing how much is left. A read asking for more
 * than the file holds plus this is an allocation that followed a hostile length or size, not the
 * file (FsStorage allocates `length` bytes before reading).
 */
export const READ_SLACK = 4 << 20;

/** `storage` with every file's `read` checked against its size (see READ_SLACK). */
export function guardReads(storage: Storage, overReads: OverRead[]): Storage {
  const wrapFile = (file: StorageFile): StorageFile =>
    new Proxy(file, {
      get(target, prop) {
        if (prop === "read") {
          return async (position: number, length: number) => {
            const size = await target.size();
            if (typeof length === "number" && length > Math.max(0, size - position) + READ_SLACK)
              overReads.push({ path: target.path, position, length, size });
            return target.read(position, length);
          };
        }
        const value = Reflect.get(target, prop, target) as unknown;
        return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
  return new Proxy(storage, {
    get(target, prop) {
      if (prop === "open") return async (path: string, options?: object) => wrapFile(await target.open(path, options));
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

export const isPagelog = (err: unknown): err is PagelogError => err instanceof PagelogError;
