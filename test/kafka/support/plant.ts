// Planted damage, for showing that a check can fail: a segment's copy with one wrong offset-index
// entry and one wrong CRC (test/kafka/dump-log-segments.test.ts on pagelog's files,
// broker-dir.test.ts on a broker's).
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { expect } from "vitest";
import type { DumpedBatch } from "./dump.js";

/** The files of `dir` ending in `ext`, sorted, as paths. */
export const filesOf = (dir: string, ext: string): string[] =>
  readdirSync(dir)
    .filter((f) => f.endsWith(ext))
    .sort()
    .map((f) => join(dir, f));

export interface Planted {
  index: string;
  /** The offset the planted entry now names, and the last offset of the batch it points at. */
  indexOffset: number;
  batchLastOffset: number;
  log: string;
  /** The base offset of the batch whose CRC is wrong, and its position. */
  crcBatch: number;
  crcPosition: number;
}

/**
 * Copies the segment of `log` (its `.log`, `.index`, `.timeindex`) to `dir` and damages the copies:
 * offset-index entry 1 names the offset before its batch's last one, and batch 1's stored CRC is
 * off by one bit. `dumpOfLog`: a dump of `log` (DumpLogSegments' or pagelog's), for the batches' positions.
 */
export function plant(
  log: string,
  dir: string,
  dumpOfLog: { readonly batches: ReadonlyArray<Pick<DumpedBatch, "position" | "baseOffset" | "lastOffset">> },
): Planted {
  mkdirSync(dir, { recursive: true });
  const base = log.replace(/\.log$/, "");
  const name = basename(base);
  for (const ext of [".log", ".index", ".timeindex"]) copyFileSync(base + ext, join(dir, name + ext));
  const index = join(dir, `${name}.index`);
  const bytes = readFileSync(index);
  expect(bytes.length, "the segment has at least two index entries").toBeGreaterThanOrEqual(16);
  // Entry 1: relative offset (int32) then position (int32). Name the offset before the right one.
  const relative = bytes.readInt32BE(8);
  bytes.writeInt32BE(relative - 1, 8);
  writeFileSync(index, bytes);
  const baseOffset = Number(name);
  const position = bytes.readInt32BE(12);
  const batch = dumpOfLog.batches.find((b) => b.position === position)!;
  const copy = join(dir, `${name}.log`);
  const logBytes = readFileSync(copy);
  const crcBatch = dumpOfLog.batches[1]!;
  // The CRC is bytes 17..20 of a batch (after base offset, length, epoch and magic).
  const crcByte = crcBatch.position + 20;
  logBytes.writeUInt8(logBytes.readUInt8(crcByte) ^ 0x01, crcByte);
  writeFileSync(copy, logBytes);
  return {
    index,
    indexOffset: baseOffset + relative - 1,
    batchLastOffset: batch.lastOffset,
    log: copy,
    crcBatch: crcBatch.baseOffset,
    crcPosition: crcBatch.position,
  };
}
