/**
 * The cases' loop guards (a lookup that reads far too much, a recover that calls its helpers far
 * too often) mark the error they throw, so whoever runs the cases can tell "a guard caught a
 * loop" from any other failure by data (`FailedCase.loop`), not by the words of the message.
 */
const CAUGHT = new WeakSet<object>();

/** Marks `error` as a loop guard's, and returns it to throw. */
export function loopCaught<E extends Error>(error: E): E {
  CAUGHT.add(error);
  return error;
}

/** True when `error` is one a loop guard threw. */
export function isLoopCaught(error: unknown): boolean {
  return typeof error === "object" && error !== null && CAUGHT.has(error);
}
