/*
 * Lines to stdout, gathered: written when 64 KiB have gathered or once the event loop turns (the
 * next read waits for the disk, or a follower for an append), so a follower's line is out within
 * a turn, and a long log is not one write per record. Waits for `drain` when the stream asks to.
 */
import type { CliIo } from "../terminal/io.js";

const CHUNK = 64 * 1024;

export class LineWriter {
  readonly #out: CliIo["stdout"];
  #pending = "";
  #scheduled = false;

  constructor(out: CliIo["stdout"]) {
    this.#out = out;
  }

  /** Adds a line; resolves at once unless the stream is full and must drain first. */
  async write(line: string): Promise<void> {
    this.#pending += line;
    if (this.#pending.length >= CHUNK) {
      await this.flush();
    } else if (!this.#scheduled) {
      this.#scheduled = true;
      setImmediate(() => void this.flush());
    }
  }

  /** Writes what has gathered (waiting for `drain` if the stream's buffer is full). */
  async flush(): Promise<void> {
    this.#scheduled = false;
    if (this.#pending === "") return;
    const text = this.#pending;
    this.#pending = "";
    const out = this.#out as CliIo["stdout"] & { once?: (event: "drain", listener: () => void) => unknown };
    if (out.write(text) === false && typeof out.once === "function") {
      await new Promise<void>((resolve) => out.once!("drain", resolve));
    }
  }
}
