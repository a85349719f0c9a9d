// `pagelog dump --json --records` (the built CLI) beside Kafka's DumpLogSegments: both turned into
// the same plain values, so that a test compares them with one toEqual.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import type { DumpedBatch as PagelogBatch, DumpedRecord as PagelogRecord } from "../../../src/inspect/dump-model.js";
import { REPO } from "../../../scripts/kafka.mjs";
import type { DumpedBatch as KafkaBatch, DumpedRecord as KafkaRecord } from "./dump.js";
import type { PlainRecord } from "./segments.js";

const CLI = join(REPO, "dist/cli.js");

/** The built CLI (`npm run build` first) with `args`: its exit status and output. */
export function cli(...args: string[]): { status: number | null; output: string; stdout: string } {
  expect(existsSync(CLI), `${CLI} is missing: run npm run build before this test`).toBe(true);
  const run = spawnSync(process.execPath, [CLI, ...args], { encoding: "utf8", maxBuffer: 64 << 20 });
  return { status: run.status, output: run.stdout + run.stderr, stdout: run.stdout };
}

/**
 * `pagelog dump --json --records <target>` (a `.log`, or a partition directory: each of its
 * segments): every `.log`'s batches with their records, by path.
 */
export function pagelogDump(target: string): Map<string, PagelogBatch[]> {
  const { status, output, stdout } = cli("dump", "--json", "--records", target);
  expect(status, output).toBe(0);
  const doc = JSON.parse(stdout) as { files: Array<{ kind: string; path: string; batches?: PagelogBatch[] }> };
  return new Map(doc.files.filter((f) => f.kind === "log").map((f) => [f.path, f.batches!]));
}

/** What both dumps say of a batch. */
interface BatchView {
  baseOffset: number;
  lastOffset: number;
  count: number;
  position: number;
  magic: number;
  compression: string;
  crc: number;
  crcValid: boolean;
  maxTimestamp: number;
  producerId: number;
  producerEpoch: number;
  isTransactional: boolean;
  isControl: boolean;
}

export const batchView = (b: PagelogBatch): BatchView => ({
  baseOffset: b.baseOffset,
  lastOffset: b.lastOffset,
  count: b.count,
  position: b.position,
  magic: b.magic,
  compression: b.compression,
  crc: Number.parseInt(b.crc.replace(/^0x/, ""), 16),
  crcValid: b.crcValid,
  maxTimestamp: b.maxTimestamp,
  producerId: b.producerId,
  producerEpoch: b.producerEpoch,
  isTransactional: b.isTransactional,
  isControl: b.isControl,
});

export const kafkaBatchView = (b: KafkaBatch): BatchView => ({
  baseOffset: b.baseOffset,
  lastOffset: b.lastOffset,
  count: b.count,
  position: b.position,
  magic: b.magic,
  compression: b.compresscodec,
  crc: b.crc,
  crcValid: b.isvalid === "true",
  maxTimestamp: b.maxTimestamp,
  producerId: b.producerId,
  producerEpoch: b.producerEpoch,
  isTransactional: b.isTransactional,
  isControl: b.isControl,
});

const hexOf = (text: string | null, encoding: "utf8" | "hex"): string | null =>
  text === null ? null : encoding === "hex" ? text : Buffer.from(text, "utf8").toString("hex");

/** Kafka's control record types (ControlRecordType), by the int16 type in the key. */
const CONTROL_TYPES = [
  "ABORT",
  "COMMIT",
  "LeaderChange",
  "SnapshotHeader",
  "SnapshotFooter",
  "KRaftVersion",
  "KRaftVoters",
];

/**
 * What a control record says, as both dumps can: a transaction marker whole (its type from the
 * key, its coordinator epoch from the value), any other (KRaft's) by its type name only.
 */
export function controlOf(key: string | null, value: string | null): string {
  const k = Buffer.from(key ?? "", "hex");
  const type = k.length >= 4 ? CONTROL_TYPES[k.readInt16BE(2)] : undefined;
  if (type === "ABORT" || type === "COMMIT") {
    const v = Buffer.from(value ?? "", "hex");
    return `endTxnMarker: ${type} coordinatorEpoch: ${v.length >= 6 ? v.readInt32BE(2) : "?"}`;
  }
  return type ?? "unknown";
}

/** Kafka's printed control text, as {@link controlOf} says it. */
export const kafkaControl = (text: string): string =>
  text.startsWith("endTxnMarker:") ? text : (/^(\w+)/.exec(text)?.[1] ?? text);

/** A pagelog record as DumpLogSegments prints one (header keys only; a control record by its meaning). */
export function dumpedView(r: PagelogRecord, control: boolean): KafkaRecord {
  const key = hexOf(r.key, r.keyEncoding);
  const value = hexOf(r.value, r.valueEncoding);
  if (control)
    return {
      offset: r.offset,
      timestamp: r.timestamp,
      key: null,
      value: null,
      headerKeys: "",
      control: controlOf(key, value),
    };
  return { offset: r.offset, timestamp: r.timestamp, key, value, headerKeys: r.headers.map((h) => h.key).join(",") };
}

/** DumpLogSegments' record in the same terms. */
export const kafkaRecordView = (r: KafkaRecord): KafkaRecord =>
  r.control === undefined ? r : { ...r, headerKeys: "", control: kafkaControl(r.control) };

/** A pagelog record as kafka-clients' FileRecords (PagelogProbe `records`) reports it. */
export const plainOf = (r: PagelogRecord): PlainRecord => ({
  offset: r.offset,
  timestamp: r.timestamp,
  key: hexOf(r.key, r.keyEncoding),
  value: hexOf(r.value, r.valueEncoding),
  headers: r.headers.map((h) => [Buffer.from(h.key, "utf8").toString("hex"), hexOf(h.value, h.valueEncoding)]),
});
