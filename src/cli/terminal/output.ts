/**
 * Buffered output for commands that print a lot (dump): text is gathered into chunks of about
 * 64 KiB and written a chunk at a time; when the stream says its buffer is full (`write` returns
 * false), `drain` waits for it. So a dump of millions of lines holds a chunk, not the output.
 */
import type { CliIo } from "./io.js";

const CHUNK = 64 * 1024;

type Stream = CliIo["stdout"] & { once?: (event: "drain", listener: () => void) => unknown };

export class Output {
  readonly #stream: Stream;
  #parts: string[] = [];
  #size = 0;

  constructor(stream: Stream) {
    this.#stream = stream;
  }

  write(text: string): void {
    this.#parts.push(text);
    this.#size += text.length;
  }

  /** Writes what is buffered once it is a chunk (or always, with `force`), waiting if the stream is full. */
  async drain(force = false): Promise<void> {
    if (this.#size === 0 || (!force && this.#size < CHUNK)) return;
    const text = this.#parts.join("");
    this.#parts = [];
    this.#size = 0;
    if (this.#stream.write(text) === false && typeof this.#stream.once === "function") {
      const once = this.#stream.once.bind(this.#stream);
      await new Promise<void>((resolve) => once("drain", resolve));
    }
  }
}
