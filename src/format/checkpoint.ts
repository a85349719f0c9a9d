/*
 * Kafka's offset checkpoint text format (`recovery-point-offset-checkpoint`,
 * `log-start-offset-checkpoint`), as CheckpointFile writes it:
 *
 *   0\n                      version
 *   2\n                      number of entries
 *   orders 0 1234\n          topic, partition, offset (one space between)
 *   my-topic 3 77\n
 *
 * A malformed file is not an error for the log: it counts as absent, and recovery starts from
 * offset 0 (scanning more, never less).
 */

const CHECKPOINT_VERSION = 0;

/** One line of an offset checkpoint file: a partition and its offset. */
export interface CheckpointEntry {
  /** The topic's name. */
  readonly topic: string;
  /** The partition number. */
  readonly partition: number;
  /** The offset checkpointed (a recovery point, or a log start offset). */
  readonly offset: number;
}

/** The file's text for these entries, in the order given. */
export function encodeCheckpoint(entries: readonly CheckpointEntry[]): string {
  const lines = [String(CHECKPOINT_VERSION), String(entries.length)];
  for (const e of entries) lines.push(`${e.topic} ${e.partition} ${e.offset}`);
  return `${lines.join("\n")}\n`;
}

/** The entries of a checkpoint file, or undefined if the text is not a valid one. */
export function decodeCheckpoint(text: string): CheckpointEntry[] | undefined {
  if (!text.endsWith("\n")) return undefined; // a torn write: the last line may be cut short
  const lines = text.slice(0, -1).split("\n");
  if (lines[0] !== String(CHECKPOINT_VERSION)) return undefined;
  const count = parseNonNegative(lines[1]);
  if (count === undefined || lines.length !== count + 2) return undefined;
  const entries: CheckpointEntry[] = [];
  for (const line of lines.slice(2)) {
    const parts = line.split(" ");
    if (parts.length !== 3) return undefined;
    const [topic, partitionText, offsetText] = parts as [string, string, string];
    const partition = parseNonNegative(partitionText);
    const offset = parseNonNegative(offsetText);
    if (topic === "" || partition === undefined || offset === undefined) return undefined;
    entries.push({ topic, partition, offset });
  }
  return entries;
}

function parseNonNegative(text: string | undefined): number | undefined {
  if (text === undefined || !/^(0|[1-9][0-9]*)$/.test(text)) return undefined;
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : undefined;
}
