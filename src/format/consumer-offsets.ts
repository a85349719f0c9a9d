/*
 * The consumer positions file (`consumer-offset-checkpoint`) in Kafka's checkpoint text style:
 *
 *   0\n                      version
 *   2\n                      number of entries
 *   billing orders 0 42\n    consumer, topic, partition, committed offset (one space between)
 *   audit orders 0 7\n
 *
 * Unlike the offset checkpoints, a malformed file is not "absent": a consumer would start over
 * (or skip ahead), so the log layer reports it rather than reading it as empty.
 */

const CONSUMER_OFFSETS_VERSION = 0;

/** A consumer or topic name: Kafka's topic characters, 1 to 249 of them (not "." or ".."). */
const NAME = /^[a-zA-Z0-9._-]{1,249}$/;

/** True if `name` can name a consumer (or a topic) in the file: `[a-zA-Z0-9._-]`, at most 249, not "." or "..". */
export function isPositionName(name: unknown): name is string {
  return typeof name === "string" && NAME.test(name) && name !== "." && name !== "..";
}

/** One line of the file: a consumer's committed offset for one partition. */
export interface ConsumerOffsetEntry {
  /** The consumer's name. */
  readonly consumer: string;
  /** The topic's name. */
  readonly topic: string;
  /** The partition number. */
  readonly partition: number;
  /** The committed offset: the next offset the consumer reads. */
  readonly offset: number;
}

/** The file's text for these entries, in the order given. */
export function encodeConsumerOffsets(entries: readonly ConsumerOffsetEntry[]): string {
  const lines = [String(CONSUMER_OFFSETS_VERSION), String(entries.length)];
  for (const e of entries) lines.push(`${e.consumer} ${e.topic} ${e.partition} ${e.offset}`);
  return `${lines.join("\n")}\n`;
}

/** The entries of the file, or a sentence saying why the text is not one (bad line, count, name, duplicate). */
export function decodeConsumerOffsets(text: string): ConsumerOffsetEntry[] | string {
  if (!text.endsWith("\n")) return "it does not end with a newline";
  const lines = text.slice(0, -1).split("\n");
  if (lines[0] !== String(CONSUMER_OFFSETS_VERSION)) return `unknown version ${JSON.stringify(lines[0]?.slice(0, 20))}`;
  const count = parseNumber(lines[1]);
  if (count === undefined || lines.length !== count + 2) return "its entry count does not match its lines";
  const entries: ConsumerOffsetEntry[] = [];
  const seen = new Set<string>();
  for (let i = 2; i < lines.length; i++) {
    const parts = lines[i]!.split(" ");
    const [consumer, topic, partitionText, offsetText] = parts;
    const partition = parseNumber(partitionText);
    const offset = parseNumber(offsetText);
    if (parts.length !== 4 || !isPositionName(consumer) || !isPositionName(topic)) return `line ${i + 1} is malformed`;
    if (partition === undefined || partition > 0x7fffffff || offset === undefined) return `line ${i + 1} is malformed`;
    const key = `${consumer} ${topic} ${partition}`;
    if (seen.has(key)) return `line ${i + 1} repeats ${consumer} ${topic}-${partition}`;
    seen.add(key);
    entries.push({ consumer, topic, partition, offset });
  }
  return entries;
}

function parseNumber(text: string | undefined): number | undefined {
  if (text === undefined || !/^(0|[1-9][0-9]{0,15})$/.test(text)) return undefined;
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : undefined;
}
