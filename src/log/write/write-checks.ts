/*
 * The write paths' expensive assertions, run only with `PAGELOG_CHECKS=all` (the tests): the pairs
 * of the encoders (TigerBeetle's pair assertions: what one side wrote, the other checks). The
 * append no longer parses back what it encoded, nor the checkpoint writer the text it wrote; under
 * test, these do, and compare. A failure is PAGELOG_BUG: the encoder's own logic is wrong, not its
 * input nor the disk. Loaded, only with the switch on, by a directory's open and a log's
 * (door-write-checks.ts).
 */
import { assertInvariant } from "../../errors.js";
import { type CheckpointEntry, decodeCheckpoint } from "../../format/checkpoint.js";
import { type BatchHeader, readBatchHeader, validateBatch } from "../../format/api.js";
import type { EncodedBatch } from "../../format/record-batch.js";
import type { LogState } from "../state/log-state.js";

/**
 * Expensive: the encoded bytes parse back as the header the encoder handed over (every field), hold
 * `count` records, and pass the CRC check a recovery will make.
 */
export function checkEncodedBatch(s: LogState, { bytes, header }: EncodedBatch, count: number): void {
  const back = readBatchHeader(bytes);
  const differs = (Object.keys(header) as Array<keyof BatchHeader>).filter((k) => back[k] !== header[k]);
  assertInvariant(
    differs.length === 0 && header.recordsCount === count && header.sizeInBytes === bytes.length,
    () => `append batch at ${header.baseOffset}: its bytes read back otherwise (${differs.join(", ")})`,
    s.name,
  );
  const checked = validateBatch(bytes, 0, bytes.length, {
    maxBatchBytes: s.options.maxBatchBytes,
    ...(s.options.crc32c === undefined ? {} : { crc32c: s.options.crc32c }),
  });
  assertInvariant(checked.ok, () => `append batch at ${header.baseOffset} does not validate`, s.name);
}

/** Expensive: the checkpoint text decodes to the entries it was encoded from (sorted, one per partition). */
export function checkEncodedCheckpoint(file: string, text: string, entries: readonly CheckpointEntry[]): void {
  const back = decodeCheckpoint(text);
  const same =
    back !== undefined &&
    back.length === entries.length &&
    back.every((e, i) => {
      const w = entries[i]!;
      return e.topic === w.topic && e.partition === w.partition && e.offset === w.offset;
    });
  assertInvariant(same, () => `${file} does not read back as the ${entries.length} entries written`, file);
}
