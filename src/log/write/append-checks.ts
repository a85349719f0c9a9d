/*
 * The append path's expensive assertion, run only with `PAGELOG_CHECKS=all` (the tests): the pair
 * of the encoder (TigerBeetle's pair assertions: what one side wrote, the other checks). The
 * append no longer parses back what it encoded; under test, this does, and compares. A failure is
 * PAGELOG_BUG: the encoder's own logic is wrong, not its input nor the disk. Loaded at a log's
 * open, only with the switch on (door-append-checks.ts).
 */
import { assertInvariant } from "../../errors.js";
import { type BatchHeader, readBatchHeader, validateBatch } from "../../format/index.js";
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
