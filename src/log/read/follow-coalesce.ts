/*
 * Batched wake-ups for a follower of a writer in the same process. Woken by every append, a
 * follower would read each one alone: one queued read, one pread and its fixed costs per append,
 * each one holding up the writer's next append in the log's queue (the writer ran at 0.46–0.48 of
 * its lone speed with one follower). Kafka's fetch has the same trade-off (`fetch.min.bytes`,
 * `fetch.max.wait.ms`).
 *
 * So a woken follower first lets a writer that awaits its appends issue the next one (a few
 * promise jobs), and while another append group is coming (or one landed in those jobs) it
 * waits for that one too, until
 * COALESCE_BYTES have gathered, a segment rolled, or COALESCE_MS passed since the first wake.
 * With no append coming it reads at once: a lone append, or a writer that waits for its
 * follower, pays no more than those promise jobs. Only a follower of the end gathers: a durable
 * follower is woken by flushes, which are batched already, and a read-only log's appends come
 * from another process.
 */
import { activeSegment, endOffsetOf, type LogState } from "../state/log-state.js";
import { wake } from "../state/log-waiters.js";
import { waitUntil } from "./wait-until.js";

/** Gather up to one read's worth (`DEFAULT_READ_BYTES` in log-read.ts) before reading. */
const COALESCE_BYTES = 1 << 20;

/** Gather for at most this long (ms) after the first wake, whatever the writer does. */
const COALESCE_MS = 2;

/** Promise jobs given to a writer that awaits each append to issue its next one. */
const WRITER_JOBS = 3;

/**
 * Resolves when the follower should read: no append group is coming, enough has gathered, the
 * time is up, or `urgent()` (its `to` reached, a cut, the start moved). Rejects as `waitUntil`
 * does (close, failure, abort).
 */
export async function gatherAppends(
  s: LogState,
  urgent: () => boolean,
  signal: AbortSignal | undefined,
): Promise<void> {
  const segment = activeSegment(s);
  const fromBytes = segment.size;
  const started = performance.now();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let expired = false;
  try {
    for (;;) {
      const before = endOffsetOf(s);
      for (let i = 0; i < WRITER_JOBS; i++) await Promise.resolve();
      if (expired || urgent()) return;
      if (activeSegment(s) !== segment || segment.size - fromBytes >= COALESCE_BYTES) return;
      const left = COALESCE_MS - (performance.now() - started);
      if (left <= 0) return;
      // Nothing coming: read now, unless an append landed meanwhile (a fast storage can write
      // a whole group within those jobs): then the writer streams, and the next may follow.
      if (s.appendGroups === 0) {
        if (endOffsetOf(s) === before) return;
        continue;
      }
      // Armed only while gathering (never for a follower that waits at an idle end), and
      // unref'd: like the wait itself, it keeps no process alive.
      timer ??= setTimeout(() => {
        expired = true;
        wake(s.waiters); // every waiter looks again; only this one finds its condition changed
      }, left);
      timer.unref?.();
      const end = endOffsetOf(s);
      await waitUntil(s, () => endOffsetOf(s) !== end || expired || urgent(), signal);
    }
  } finally {
    if (timer !== undefined) clearTimeout(timer);
  }
}
