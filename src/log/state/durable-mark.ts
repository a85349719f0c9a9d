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
import { DURABLE_OFFSET_FILE, encodeDurableOffset } from "../../format/durable-offset.js";
import { joinPath } from "../../storage/paths.js";
import type { Storage } from "../../storage/storage.js";

/** What these need of a log's state (`LogState`, which calls them: named here, not imported, to keep no cycle). */
interface LogState {
  readonly name: string;
  readonly host: { readonly storage: Storage };
  recoveryPoint: number;
}

/** The value each log last published (a log of this process: another session's file may differ). */
const published = new WeakMap<LogState, number>();

/**
 * Every record below `to` is durable (its segment data, indexes and directory entries fsynced):
 * the recovery point moves up to it and the new value is published. Call it only after those
 * fsyncs returned: every place the recovery point advances goes through here.
 */
export async function recoveryPointReached(s: LogState, to: number): Promise<void> {
  s.recoveryPoint = to;
  if (published.get(s) === to) return;
  try {
    const file = await s.host.storage.open(joinPath(s.name, DURABLE_OFFSET_FILE), { create: true });
    try {
      await file.write(0, encodeDurableOffset(to));
    } finally {
      await file.close();
    }
    published.set(s, to);
  } catch {
    // Best effort: a reader that finds no valid value uses the checkpoint, which lags but is
    // never wrong. The flush itself succeeded, and failing the log for this would lose more.
    published.delete(s);
  }
}

/**
 * Before a cut below what may have been published (this session's or an earlier one's file):
 * the file goes, durably, so that no reader takes the offsets the cut frees for durable ones.
 */
export async function withdrawDurableOffset(s: LogState): Promise<void> {
  const path = joinPath(s.name, DURABLE_OFFSET_FILE);
  published.delete(s);
  if ((await s.host.storage.stat(path)) === null) return;
  await s.host.storage.remove(path);
  await s.host.storage.syncDir(s.name);
}
