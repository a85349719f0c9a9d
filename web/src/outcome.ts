/**
 * A step that threw, in one line. A `PAGELOG_POLICY` error says which of the reader's policies
 * broke the log and where; anything else is shown as the terminal demo shows it ("error: ...").
 */
interface PolicyFailure {
  readonly policy: string;
  readonly why: string;
  readonly breaksAt?: number;
}

export function outcomeOfError(err: unknown): string {
  const e = err as { code?: unknown; policy?: PolicyFailure; message?: unknown };
  if (e?.code === "PAGELOG_POLICY" && e.policy !== undefined) {
    const p = e.policy;
    if (p.why.startsWith("threw")) return `restart: your ${p.policy} ${p.why}`;
    const at = p.breaksAt === undefined ? "" : ` at byte ${p.breaksAt}`;
    return `restart: broken${at}: your ${p.policy} kept bytes that are not whole valid batches (${p.why})`;
  }
  const message = err instanceof Error ? err.message : String(err);
  return `error: ${message.split("\n")[0]}`;
}
