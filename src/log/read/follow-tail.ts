/*
 * A follower's read served from the batches the writer of this process just wrote
 * (state/written-tail.ts) instead of from the file: the same bytes, already CRC'd by the encoder
 * that made them, decoded without a pread and without checking each CRC again. Only for a
 * follower of the end of a writable log that is open, not `durable` (it waits for flushes, and
 * the tail says nothing about them), and only where no transaction can bound what it may see (a
 * broker's log with transactions reads the file, whose walk knows them). In a compacted log only
 * from the active segment on: the cleaner may have rewritten a sealed one since it was written.
 */
import { decodeBatch } from "../../format/checked/batch-functions.js";
import { compacts } from "../options/cleanup-policy.js";
import { activeSegment, endOffsetOf, type LogState } from "../state/log-state.js";
import { WrittenTail } from "../state/written-tail.js";
import type { LogRecord } from "./log-read.js";

export { gatherAppends } from "./follow-coalesce.js";

/**
 * A follower of the end waits (or reads) here: the writer keeps what it writes next, in a
 * written tail made now if the log has none yet.
 */
export function keepTail(s: LogState): WrittenTail {
  const tail = (s.writtenTail ??= new WrittenTail());
  tail.want();
  return tail;
}

/**
 * The records from `offset` on (at most `maxRecords`, about `maxBytes` of batches), from the
 * written tail; undefined when it does not hold `offset` up to the end: read the file. Runs in
 * the log's queue, as the read it stands for: no truncation runs between its look and its answer.
 */
export async function tailRecords(
  s: LogState,
  offset: number,
  maxBytes: number,
  maxRecords: number,
): Promise<LogRecord[] | undefined> {
  if (s.status !== "open") return undefined;
  if (compacts(s.options.cleanupPolicy) && offset < activeSegment(s).baseOffset) return undefined;
  // A follower reads: keep the tail, even while it is still too far behind to be handed it.
  const batches = keepTail(s).batchesFrom(offset, endOffsetOf(s), maxBytes);
  if (batches === undefined) return undefined;
  let out: LogRecord[] = [];
  for (const bytes of batches) {
    const { records } = await decodeBatch(bytes, { verifyCrc: false }); // the encoder's own bytes
    if (out.length === 0 && records[0]!.offset >= offset && records.length <= maxRecords) out = records;
    else for (const r of records) if (r.offset >= offset && out.length < maxRecords) out.push(r);
    if (out.length >= maxRecords) break;
  }
  return out;
}
