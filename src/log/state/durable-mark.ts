/*
 * The recovery point's one way up, and its publication: after the fsyncs that made every record
 * below it durable, the writer rewrites its partition's `pagelog-durable-offset` file
 * (format/durable-offset.ts) so that a read-only opener in another process can serve durable
 * reads up to it at its next poll, instead of waiting for the recovery-point checkpoint (60 s by
 * default). The file is written in place without an fsync: every value a reader can see was
 * written after the data it vouches for was durable, so the page cache's copy is enough, and a
 * torn or lost write leaves a value the reader rejects (CRC) or an older, still durable one.
 *
 * The one thing that can make a published value wrong is a cut below it (`truncateTo`), so the
 * truncation withdraws the file durably before it cuts (`withdrawDurableOffset`), as it lowers
 * the checkpoint; the next flush publishes again.
 */
import { assertInvariant } from "../../errors.js";
import { DURABLE_OFFSET_FILE, encodeDurableOffset } from "../../format/durable-offset.js";
import { joinPath } from "../../storage/paths.js";
import type { Storage, StorageFile } from "../../storage/storage.js";

/** What these need of a log's state (`LogState`, which calls them: named here, not imported, to keep no cycle). */
interface LogState {
  readonly name: string;
  readonly host: { readonly storage: Storage };
  readonly status: string;
  recoveryPoint: number;
}

/**
 * Each log's durable-offset file, kept open between flushes (an open and a close per flush cost
 * a fifth of a `flushMessages: 1` append on ext4), and the value it last published (this
 * session's: another session's file may hold another).
 */
const marks = new WeakMap<LogState, { file: Promise<StorageFile>; published?: number | undefined }>();

/**
 * Every record below `to` is durable (its segment data, indexes and directory entries fsynced):
 * the recovery point moves up to it and the new value is published. Call it only after those
 * fsyncs returned: every place the recovery point advances goes through here. A closing log's
 * last flush closes the file.
 */
export async function recoveryPointReached(s: LogState, to: number, end: number): Promise<void> {
  // The recovery point's one way up: never down (a truncation lowers it itself, before its cut),
  // never past the end (recovery would then skip bytes never written).
  assertInvariant(
    to >= s.recoveryPoint && to <= end,
    () => `recovery point of ${s.name} moving from ${s.recoveryPoint} to ${to}, end ${end}`,
    s.name,
  );
  s.recoveryPoint = to;
  let mark = marks.get(s);
  try {
    if (mark?.published !== to) {
      if (mark === undefined) {
        mark = { file: s.host.storage.open(joinPath(s.name, DURABLE_OFFSET_FILE), { create: true }) };
        marks.set(s, mark);
      }
      mark.published = undefined;
      await (await mark.file).write(0, encodeDurableOffset(to));
      mark.published = to;
    }
  } catch {
    // Best effort: a reader that finds no valid value uses the checkpoint, which lags but is
    // never wrong. The flush itself succeeded, and failing the log for this would lose more.
    await forget(s);
  }
  if (s.status === "closing") await forget(s);
}

/** Closes the log's durable-offset file, if it has one open. */
async function forget(s: LogState): Promise<void> {
  const mark = marks.get(s);
  marks.delete(s);
  await (await mark?.file.catch(() => undefined))?.close().catch(() => undefined);
}

/**
 * Before a cut below what may have been published (this session's or an earlier one's file):
 * the file goes, durably, so that no reader takes the offsets the cut frees for durable ones.
 * (Closed first: the next flush publishes into a new file, not the removed one.)
 */
export async function withdrawDurableOffset(s: LogState): Promise<void> {
  const path = joinPath(s.name, DURABLE_OFFSET_FILE);
  await forget(s);
  if ((await s.host.storage.stat(path)) === null) return;
  await s.host.storage.remove(path);
  await s.host.storage.syncDir(s.name);
}
