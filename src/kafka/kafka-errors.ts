/** Reading kafkajs's errors: a protocol error's type may sit under a retrier's wrapper (`cause`, `originalError`). */

/** The protocol error types in `err` and what it wraps. */
function typesOf(err: unknown): string[] {
  const types: string[] = [];
  let e: unknown = err;
  for (let depth = 0; depth < 5 && typeof e === "object" && e !== null; depth++) {
    const type = (e as { type?: unknown }).type;
    if (typeof type === "string") types.push(type);
    e = (e as { originalError?: unknown; cause?: unknown }).originalError ?? (e as { cause?: unknown }).cause;
  }
  return types;
}

/** Another producer of the same transactional id took over: this one can never write again. */
export function isFenced(err: unknown): boolean {
  return typesOf(err).some(
    (t) => t === "PRODUCER_FENCED" || t === "INVALID_PRODUCER_EPOCH" || t === "TRANSACTIONAL_ID_AUTHORIZATION_FAILED",
  );
}

/** The error's message, with what it wraps when that says more (kafkajs's retrier hides the first cause). */
export function describeKafkaError(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const inner = (err as { originalError?: unknown }).originalError ?? err.cause;
  return inner instanceof Error && inner.message !== err.message ? `${err.message} (${inner.message})` : err.message;
}
