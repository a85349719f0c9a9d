/*
 * `topic-partitions`: each topic's partition count, in the text style of Kafka's checkpoints
 *
 *   0                  version
 *   2                  number of topics
 *   orders 8           <topic> <partitions>, one line each, sorted by topic
 *   payments 3
 *
 * Kafka keeps the count in the cluster's metadata; a directory of pagelog's has no cluster, so
 * the root keeps it. It is rewritten whole through `<file>.tmp`, fsynced, renamed and the
 * directory fsynced, like every root file: a crash leaves the old list or the new one. A file
 * that is there but not one is `PAGELOG_CORRUPT`: read as empty, it would let a topic reopen
 * with fewer partitions, moving keys to other partitions.
 */
import { ErrorCode, PagelogError } from "../../errors.js";
import type { Storage } from "../../storage/storage.js";
import { maxCheckpointBytes, writeFileAtomically } from "../checkpoints/checkpoint-files.js";
import { parsePartitionName } from "../checkpoints/partition-names.js";
import { TOPIC_PARTITIONS_FILE } from "../checkpoints/root-files.js";

const VERSION = 0;
const LINE = /^([a-zA-Z0-9._-]+) ([1-9][0-9]{0,9})$/;

function corrupt(reason: string): PagelogError {
  return new PagelogError(
    `${TOPIC_PARTITIONS_FILE} is not a topic partitions file (${reason}): pagelog will not guess the partition counts; move it aside and open each topic with its count`,
    ErrorCode.CORRUPT,
    { path: TOPIC_PARTITIONS_FILE },
  );
}

function encodeTopicPartitions(counts: ReadonlyMap<string, number>): string {
  const names = [...counts.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return `${VERSION}\n${names.length}\n${names.map((n) => `${n} ${counts.get(n)}\n`).join("")}`;
}

function decodeTopicPartitions(text: string): Map<string, number> | string {
  const lines = text.split("\n");
  if (lines.pop() !== "") return "no newline at its end";
  if (lines[0] !== String(VERSION)) return `version ${JSON.stringify(lines[0] ?? "")}, not ${VERSION}`;
  const count = Number(lines[1]);
  if (!/^(0|[1-9][0-9]*)$/.test(lines[1] ?? "") || count !== lines.length - 2) return "its count is not its lines'";
  const out = new Map<string, number>();
  for (const line of lines.slice(2)) {
    const m = LINE.exec(line);
    if (m === null || out.has(m[1]!)) return `a bad line ${JSON.stringify(line.slice(0, 300))}`;
    out.set(m[1]!, Number(m[2]));
  }
  return out;
}

/** The recorded counts; an absent file is none. A damaged one is `PAGELOG_CORRUPT`. */
export async function readTopicPartitions(storage: Storage): Promise<Map<string, number>> {
  const stat = await storage.stat(TOPIC_PARTITIONS_FILE);
  if (stat === null) return new Map();
  if (stat.kind !== "file") throw corrupt("not a file");
  // Bounded as the checkpoints are: a line per topic is shorter than a checkpoint's per partition.
  const names = await storage.list("");
  const limit = maxCheckpointBytes(names.filter((n) => parsePartitionName(n) !== undefined).length);
  if (stat.size > limit) throw corrupt(`${stat.size} bytes, more than ${limit}`);
  const handle = await storage.open(TOPIC_PARTITIONS_FILE, { readOnly: true });
  let bytes: Uint8Array;
  try {
    bytes = await handle.read(0, stat.size);
  } finally {
    await handle.close();
  }
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw corrupt("not UTF-8");
  }
  const decoded = decodeTopicPartitions(text);
  if (typeof decoded === "string") throw corrupt(decoded);
  return decoded;
}

/** Writes the counts durably: the new list or the old one survives a crash, whole. */
export async function writeTopicPartitions(storage: Storage, counts: ReadonlyMap<string, number>): Promise<void> {
  await writeFileAtomically(storage, TOPIC_PARTITIONS_FILE, new TextEncoder().encode(encodeTopicPartitions(counts)));
  // The rename is durable only once the directory is: before it, a crash could bring back the old count.
  await storage.syncDir("");
}
