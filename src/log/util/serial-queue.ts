/**
 * Runs async tasks one at a time, in the order they were submitted. The log puts every call
 * through one queue, so calls that overlap in time are applied in call order and never
 * interleave their bytes.
 */
export class SerialQueue {
  #tail: Promise<unknown> = Promise.resolve();

  run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.#tail.then(task, task);
    // The chain continues whether this task succeeds or fails; its caller sees the failure.
    this.#tail = result.catch(() => undefined);
    return result;
  }
}
