/**
 * The corruption sweep: a small log (four segments, several batches each) is closed cleanly,
 * then damaged — the last segment cut at every byte length, every byte of its
 * last three batches overwritten with other values — and reopened three ways:
 *
 * - `clean`: the clean-shutdown marker is there. The files are trusted, so damage must be caught
 *   (`PAGELOG_CORRUPT` on open or on read) rather than served.
 * - `unclean`: the marker removed, the checkpoints kept. Recovery starts at the checkpointed
 *   recovery point, which is the log end: the damage is below it, in acknowledged data, so it
 *   must be reported (`PAGELOG_CORRUPT`), never cut silently.
 * - `unclean, no checkpoint`: the marker and the recovery-point checkpoint removed, as after a
 *   crash before any checkpoint. Recovery walks every batch and truncates at the first bad one:
 *   the open must succeed, with exactly the whole batches before the damage.
 *
 * Whatever the case, opening and reading throw nothing but a `PagelogError`, and every record
 * returned is the one appended at its offset: a prefix, never garbage.
 *
 * Every CRC-32C of the sweep is the native one (`@node-rs/crc32`, pagelog's optional dependency)
 * from the first byte: the sweep's batches are shorter than the length from which pagelog calls
 * it by default, and a damaged batch must be caught whichever CRC-32C checks it.
 *
 * Every case runs on SimStorage (the same files, in memory: about 1 ms a case); every
 * `PAGELOG_SWEEP_FS_EVERY`-th case (default 20, 1 for all) runs on real files too, through
 * FsStorage (about 15 ms a case: a copy of the directory, and the fsyncs of open and close).
 */
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installNativeCrc32c } from "../../src/format/crc32c-accelerator.js";
import { crc32cInUse } from "../../src/format/crc32c.js";
import { LogDir, PagelogError, SimStorage } from "../../src/index.js";
import { loadNativeCrc32c } from "../../src/storage/fs-native-crc32c.js";
import type { LogOptions, RecordInput, Storage } from "../../src/index.js";

const NAME = "sweep-0";
const MARKER = ".kafka_cleanshutdown";
const RECOVERY_CHECKPOINT = "recovery-point-offset-checkpoint";
const LAST_BATCHES = 3;
// Batch layout (docs/format.md): baseOffset int64, length int32, partitionLeaderEpoch int32, …
const BATCH_LENGTH_AT = 8;
const EPOCH_AT = 12;
const RECORDS_COUNT_AT = 57;
const LOG_OVERHEAD = 12; // baseOffset + length: the bytes the length does not count

type Variant = "clean" | "unclean" | "unclean, no checkpoint";
const VARIANTS: readonly Variant[] = ["clean", "unclean", "unclean, no checkpoint"];

import { plain, type PlainRecord as Plain } from "../support/plain-record.js";
import { size } from "../support/budget.js";

const FS_EVERY = size("sweepFsEvery");
const LOG_OPTIONS: LogOptions = { segmentBytes: 600, indexIntervalBytes: 100 };

let root: string;
let pristine: string;
const originals: Plain[] = [];
/** The last segment: its path, its bytes, its batches (position, size, first offset, record count). */
let lastLog: string;
let lastBytes: Uint8Array;
const batches: Array<{ position: number; size: number; firstOffset: number; count: number }> = [];
let recordsBeforeLast = 0;
/** The pristine directory's entries: a directory has no bytes. */
const pristineFiles: Array<{ path: string; bytes: Uint8Array | undefined }> = [];

/** Writes the pristine log into a log directory and closes it cleanly. */
async function writePristine(where: string | Storage): Promise<{ segmentCount: number; records: Plain[] }> {
  const dir = await LogDir.open(where);
  const log = await dir.log(NAME, LOG_OPTIONS);
  let offset = 0;
  for (let b = 0; b < 16; b++) {
    const records: RecordInput[] = [];
    for (let i = 0; i < 1 + (b % 3); i++, offset++) {
      records.push({
        key: offset % 4 === 0 ? null : `k${offset}`,
        value: `value ${offset} ` + "abcdefghij".repeat(offset % 5),
        headers: offset % 3 === 0 ? [{ key: "h", value: `x${offset}` }] : [],
        timestamp: 1_700_000_000_000 + offset * 1000,
      });
    }
    await log.append(records);
  }
  const records: Plain[] = [];
  for await (const r of log.records({ from: 0 })) records.push(plain(r));
  const segmentCount = log.segmentCount;
  await dir.close();
  return { segmentCount, records };
}

beforeAll(async () => {
  installNativeCrc32c(
    () => loadNativeCrc32c(),
    (reason) => {
      throw new Error(`the sweep runs with the native CRC-32C: ${reason}`);
    },
    0,
  );
  expect(crc32cInUse()).toMatchObject({ kind: "native", fromBytes: 0 });
  root = mkdtempSync(join(tmpdir(), "pagelog-sweep-"));
  pristine = join(root, "pristine");
  const written = await writePristine(pristine);
  originals.push(...written.records);
  expect(written.segmentCount).toBeGreaterThanOrEqual(3);

  const logs = readdirSync(join(pristine, NAME))
    .filter((n) => n.endsWith(".log"))
    .sort();
  lastLog = `${NAME}/${logs[logs.length - 1]!}`;
  recordsBeforeLast = Number(logs[logs.length - 1]!.slice(0, 20));
  lastBytes = new Uint8Array(readFileSync(join(pristine, lastLog)));
  const view = new DataView(lastBytes.buffer, lastBytes.byteOffset, lastBytes.byteLength);
  for (let at = 0, first = recordsBeforeLast; at < lastBytes.length;) {
    const size = LOG_OVERHEAD + view.getInt32(at + BATCH_LENGTH_AT);
    const count = view.getInt32(at + RECORDS_COUNT_AT);
    batches.push({ position: at, size, firstOffset: first, count });
    at += size;
    first += count;
  }
  expect(batches.length).toBeGreaterThanOrEqual(LAST_BATCHES);

  // Every file of the pristine directory, parents first, for prepareSim.
  const walk = (rel: string) => {
    for (const name of readdirSync(join(pristine, rel)).sort()) {
      const path = rel === "" ? name : `${rel}/${name}`;
      if (name === ".lock") continue;
      if (statSync(join(pristine, path)).isDirectory()) {
        pristineFiles.push({ path, bytes: undefined });
        walk(path);
      } else pristineFiles.push({ path, bytes: new Uint8Array(readFileSync(join(pristine, path))) });
    }
  };
  walk("");

  // The simulator writes the same bytes.
  const sim = new SimStorage({ seed: 1 });
  await writePristine(sim);
  const file = await sim.open(lastLog);
  expect(await file.read(0, await file.size())).toEqual(lastBytes);
}, 30_000);

afterAll(() => {
  installNativeCrc32c(
    () => loadNativeCrc32c(),
    () => {},
  );
  if (root !== undefined) rmSync(root, { recursive: true, force: true });
});

type Damage =
  | { readonly kind: "cut"; readonly length: number }
  | { readonly kind: "set"; readonly at: number; readonly value: number };

interface Opened {
  records: Plain[];
  error: PagelogError | undefined;
}

/** A fresh copy of the pristine directory on real files, damaged and prepared for `variant`. */
function prepareFs(variant: Variant, damage: Damage): string {
  const work = mkdtempSync(join(root, "case-"));
  cpSync(pristine, work, { recursive: true });
  const file = join(work, lastLog);
  if (damage.kind === "cut") truncateSync(file, damage.length);
  else {
    const bytes = new Uint8Array(readFileSync(file));
    bytes[damage.at] = damage.value;
    writeFileSync(file, bytes);
  }
  if (variant !== "clean") rmSync(join(work, MARKER));
  if (variant === "unclean, no checkpoint") rmSync(join(work, RECOVERY_CHECKPOINT));
  return work;
}

/** The same on a fresh SimStorage (durably: this damage is what the disk holds). */
async function prepareSim(variant: Variant, damage: Damage): Promise<SimStorage> {
  const sim = new SimStorage({ seed: 1 });
  // The pristine files as they are on disk (faster than writing the log again).
  for (const entry of pristineFiles) {
    if (entry.bytes === undefined) await sim.mkdir(entry.path);
    else {
      const file = await sim.open(entry.path, { create: true });
      await file.write(0, entry.bytes);
      await file.sync();
      await file.close();
    }
  }
  await sim.syncDir(NAME);
  await sim.syncDir("");
  const file = await sim.open(lastLog);
  if (damage.kind === "cut") await file.truncate(damage.length);
  else await file.write(damage.at, Uint8Array.of(damage.value));
  await file.sync();
  await file.close();
  if (variant !== "clean") await sim.remove(MARKER);
  if (variant === "unclean, no checkpoint") await sim.remove(RECOVERY_CHECKPOINT);
  await sim.syncDir("");
  return sim;
}

/** Opens, reads everything, closes; any error must be a PagelogError. */
async function openAndRead(where: string | Storage, what: string): Promise<Opened> {
  const records: Plain[] = [];
  let error: PagelogError | undefined;
  const keep = (err: unknown) => {
    if (!(err instanceof PagelogError))
      throw new Error(`${what}: threw something other than a PagelogError: ${(err as Error)?.stack ?? String(err)}`);
    error ??= err;
  };
  let dir: LogDir | undefined;
  try {
    dir = await LogDir.open(where);
    const log = await dir.log(NAME);
    for await (const r of log.records({ from: log.startOffset })) records.push(plain(r));
  } catch (err) {
    keep(err);
  } finally {
    await dir?.close().catch(keep);
  }
  return { records, error };
}

const tally = new Map<string, number>();
const count = (key: string) => tally.set(key, (tally.get(key) ?? 0) + 1);
/** How many cases of each test also ran on real files. */
const fsCounts = new Map<string, number>();

/** Checks one opened case against what the variant allows. */
function check(variant: Variant, damage: Damage, opened: Opened, what: string): void {
  // Never garbage: every record returned is the original at its offset, offsets contiguous from 0.
  for (const [i, r] of opened.records.entries()) {
    if (JSON.stringify(r) !== JSON.stringify(originals[i])) {
      throw new Error(
        `${what}: record #${i} is ${JSON.stringify(r)}, but ${JSON.stringify(originals[i])} was appended there`,
      );
    }
  }
  const outcome =
    opened.error?.code ?? (opened.records.length === originals.length ? "opened, every record" : "opened, a prefix");
  count(`${damage.kind === "cut" ? "cut" : "overwrite"}, ${variant}: ${outcome}`);
  if (damage.kind === "cut") {
    if (variant === "unclean, no checkpoint") {
      // Recovery keeps exactly the whole batches before the cut.
      if (opened.error !== undefined) throw new Error(`${what}: ${opened.error.code}: ${opened.error.message}`);
      const whole = batches
        .filter((b) => b.position + b.size <= damage.length)
        .reduce((n, b) => n + b.count, recordsBeforeLast);
      expect(opened.records.length, what).toBe(whole);
    } else {
      // Acknowledged data is missing: that must be loud.
      expect(opened.error?.code, what).toBe("PAGELOG_CORRUPT");
    }
  } else {
    const damaged = batches.find((b) => damage.at >= b.position && damage.at < b.position + b.size)!;
    if (variant === "unclean, no checkpoint") {
      if (opened.error !== undefined) throw new Error(`${what}: ${opened.error.code}: ${opened.error.message}`);
      expect(opened.records.length, what).toBeGreaterThanOrEqual(damaged.firstOffset);
    } else if (opened.error === undefined) {
      // Served without an error: then it must be everything, unchanged (a byte that no check
      // covers and no reader uses: the partition leader epoch).
      expect(opened.records.length, `${what}: opened without an error but lost records`).toBe(originals.length);
      expect(damage.at - damaged.position, `${what}: damage served silently outside the leader epoch`).toSatisfy(
        (p: number) => p >= EPOCH_AT && p < EPOCH_AT + 4,
      );
    } else {
      expect(opened.error.code, what).toBe("PAGELOG_CORRUPT");
    }
  }
}

function damages(kind: Damage["kind"]): Damage[] {
  const out: Damage[] = [];
  if (kind === "cut") for (let length = 0; length < lastBytes.length; length++) out.push({ kind, length });
  else {
    for (let at = batches[batches.length - LAST_BATCHES]!.position; at < lastBytes.length; at++) {
      const old = lastBytes[at]!;
      for (const value of new Set([old ^ 0xff, old ^ 0x01, 0x00, 0x80]))
        if (value !== old) out.push({ kind, at, value });
    }
  }
  return out;
}

const describeDamage = (d: Damage) =>
  d.kind === "cut"
    ? `${lastLog} cut to ${d.length} bytes`
    : `${lastLog} byte ${d.at} set to 0x${d.value.toString(16)} (was 0x${lastBytes[d.at]!.toString(16)})`;

describe("corruption sweep", () => {
  for (const variant of VARIANTS) {
    for (const kind of ["cut", "set"] as const) {
      const title =
        kind === "cut"
          ? "the last segment cut at every byte length"
          : `every byte of the last ${LAST_BATCHES} batches overwritten (xor 0xff, xor 0x01, 0x00, 0x80)`;
      it(`${variant}: ${title}`, async () => {
        let fsCases = 0;
        for (const [i, damage] of damages(kind).entries()) {
          const what = `${variant}, ${describeDamage(damage)}`;
          check(
            variant,
            damage,
            await openAndRead(await prepareSim(variant, damage), `SimStorage: ${what}`),
            `SimStorage: ${what}`,
          );
          if (i % FS_EVERY === 0) {
            const path = prepareFs(variant, damage);
            const opened = await openAndRead(path, `real files: ${what}`);
            rmSync(path, { recursive: true, force: true });
            check(variant, damage, opened, `real files: ${what}`);
            fsCases++;
          }
        }
        fsCounts.set(`${kind === "cut" ? "cut" : "overwrite"}, ${variant}`, fsCases);
      });
    }
  }

  it("reports what the damage led to", () => {
    console.log(
      `corruption sweep (last segment ${lastBytes.length} bytes, ${batches.length} batches; outcomes on SimStorage and on real files, summed):\n${[...tally].map(([k, v]) => `  ${k}: ${v}`).join("\n")}\nalso on real files: ${[...fsCounts].map(([k, v]) => `${k}: ${v}`).join("; ")}`,
    );
  });
});
