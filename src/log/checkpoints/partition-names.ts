/** Kafka's partition directory names (`<topic>-<partition>`) and their limits. */

/** Kafka's longest topic name (`Topic.MAX_NAME_LENGTH`). */
export const MAX_TOPIC_LENGTH = 249;
/**
 * The longest partition directory name: a file name's limit on every common file system (NAME_MAX,
 * 255 bytes; the names are ASCII). Kafka caps the topic at 249 characters (leaving room for "-"
 * and a 5-digit partition) but does not check the directory name itself: a 249-character topic
 * with a 6-digit partition would fail at mkdir with ENAMETOOLONG, so it is refused up front.
 */
export const MAX_DIR_NAME_LENGTH = 255;
/** Kafka's partition directory names: a topic of `[a-zA-Z0-9._-]`, at most 249 characters. */
const PARTITION_NAME = /^([a-zA-Z0-9._-]{1,249})-(0|[1-9][0-9]{0,9})$/;

/** Splits `orders-0` into topic `orders` and partition 0; undefined if it is not such a name. */
export function parsePartitionName(name: string): { topic: string; partition: number } | undefined {
  if (typeof name !== "string" || name.length > MAX_DIR_NAME_LENGTH) return undefined;
  const m = PARTITION_NAME.exec(name);
  if (m === null || m[1] === "." || m[1] === "..") return undefined;
  const partition = Number(m[2]);
  return partition <= 0x7fffffff ? { topic: m[1]!, partition } : undefined;
}
