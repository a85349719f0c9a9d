/*
 * The names of a log directory's root files (Kafka's), and which of their temp files an open
 * removes: one place that names them, so that LogDir, its helpers and the checkpoint readers
 * agree on every name without importing LogDir.
 */
import { TMP_SUFFIX } from "./checkpoint-files.js";
import { CLEANER_CHECKPOINT } from "./cleaner-checkpoint.js";
import { CONSUMER_OFFSET_CHECKPOINT } from "./consumer-files.js";

export const LOCK_FILE = ".lock";
export const CLEAN_SHUTDOWN_FILE = ".kafka_cleanshutdown";
export const RECOVERY_POINT_CHECKPOINT = "recovery-point-offset-checkpoint";
export const LOG_START_CHECKPOINT = "log-start-offset-checkpoint";
/** Each topic's partition count (topic/topic-file.ts): a directory of pagelog's has no cluster metadata. */
export const TOPIC_PARTITIONS_FILE = "topic-partitions";
/** What Kafka writes into the marker (no newline). */
export const CLEAN_SHUTDOWN_CONTENT = '{"version":0,"brokerEpoch":-1}';
/** The temp files of writeFileAtomically in the root: the only `*.tmp` an open removes there. */
export const OWN_TMP_FILES: ReadonlySet<string> = new Set(
  [
    RECOVERY_POINT_CHECKPOINT,
    LOG_START_CHECKPOINT,
    CLEAN_SHUTDOWN_FILE,
    CONSUMER_OFFSET_CHECKPOINT,
    CLEANER_CHECKPOINT,
    TOPIC_PARTITIONS_FILE,
  ].map((f) => f + TMP_SUFFIX),
);
