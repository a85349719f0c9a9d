/**
 * Noticing that the reader of our stdout pipe went away while `tail --follow` has nothing to write
 * (`pagelog tail d p --follow | head -1` on a quiet log). A writer learns of a closed pipe only
 * when it writes (EPIPE, handled in main.ts) or when it polls the pipe for POLLERR, which is how
 * GNU `tail -f` ends within a second of `head` exiting. Node exposes no poll() on a write-only
 * pipe: a zero-length write returns 0 without checking for readers, libuv refuses to read-watch
 * a descriptor opened write-only (ENOTCONN), and reopening the pipe through /proc would make us a
 * reader that keeps it alive. So we borrow GNU tail's check: a child `tail -f --pid=<us>
 * /dev/null` writes nothing, shares our stdout, and dies of SIGPIPE when the pipe has no reader.
 * `--pid` makes it exit within a second of us, even if we are killed, so it never keeps the pipe
 * open after we are gone. Where there is no GNU tail (BSD, busybox: it exits at once with an
 * error, not SIGPIPE) this watches nothing, and the next record written ends us as before.
 */
import { spawn } from "node:child_process";
import { fstatSync } from "node:fs";

/** Exit status of a process killed by SIGPIPE, as a shell reports it (128 + 13). */
const SIGPIPE_STATUS = 141;

/** The part of libuv's stream handle behind `process.stdout` that a socket watch uses. */
interface ReadableHandle {
  readStart(): number;
  readStop(): number;
  onread: ((buffer?: ArrayBuffer) => void) | undefined;
}

/**
 * Calls `onGone` once the reader of this process's stdout (a pipe or a socket) has gone. Returns
 * the function that stops watching (call it before exiting). Does nothing on a terminal or file.
 */
export function watchStdoutReader(onGone: () => void): () => void {
  let kind: "fifo" | "socket" | undefined;
  try {
    const st = fstatSync(1);
    kind = st.isFIFO() ? "fifo" : st.isSocket() ? "socket" : undefined;
  } catch {
    kind = undefined;
  }
  if (kind === "socket") return watchSocket(onGone);
  if (kind === "fifo" && process.platform === "linux") return watchFifo(onGone);
  return () => undefined;
}

/**
 * A socket (what Node's `spawn(…, { stdio: "pipe" })` gives a child) is open for reading too, so
 * libuv can watch it: when the peer closes, a read returns end-of-file (no buffer). Data the peer
 * sends is dropped. The handle is Node's own (`process.stdout._handle`), reached through an
 * internal field: where it is missing or refuses, nothing is watched.
 */
function watchSocket(onGone: () => void): () => void {
  const handle = (process.stdout as unknown as { _handle?: Partial<ReadableHandle> })._handle;
  if (typeof handle?.readStart !== "function" || typeof handle.readStop !== "function") return () => undefined;
  const previous = handle.onread;
  handle.onread = (buffer?: ArrayBuffer) => {
    if (buffer === undefined) onGone();
  };
  if (handle.readStart() !== 0) {
    handle.onread = previous;
    return () => undefined;
  }
  return () => {
    handle.readStop?.();
    handle.onread = previous;
  };
}

/** A pipe: GNU tail's check, in a child that shares our stdout (see the top of this file). */
function watchFifo(onGone: () => void): () => void {
  let stopped = false;
  const child = spawn("tail", ["-f", `--pid=${process.pid}`, "/dev/null"], {
    stdio: ["ignore", 1, "ignore"],
    env: { ...process.env, LC_ALL: "C" },
  });
  child.on("error", () => undefined); // no tail on this machine: nothing to watch with
  child.on("exit", (code, signal) => {
    if (!stopped && (signal === "SIGPIPE" || code === SIGPIPE_STATUS)) onGone();
  });
  // The watcher must not keep the event loop (and so the command) alive.
  child.unref();
  return () => {
    stopped = true;
    if (child.exitCode === null && child.signalCode === null) child.kill();
  };
}
