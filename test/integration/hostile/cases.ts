/**
 * The hostile-files sweep's cases: each one a mutation of the pristine log directory and what
 * an open of it may do (see `Expect`). Generated, not listed: every file kind, sizes, every
 * batch header field, every record field (varints over-long, non-canonical, out of range),
 * checkpoint texts, the marker, the lock, leftovers and names; then seeded random damage.
 */
import { constants, gzipSync } from "node:zlib";
import { offsetName } from "../../../src/format.js";
import { seededBytes } from "../../support/seeded-bytes.js";
import {
  FIELDS,
  type FieldName,
  batchesOf,
  concat,
  fixCrc,
  getField,
  joinBatch,
  paddedVarint,
  setField,
  splice,
  splitBatch,
  zigzag,
} from "./batch-bytes.js";
import { LOCK, MARKER, OTHER, PARTITION, RECOVERY_CHECKPOINT, START_CHECKPOINT, type Tree } from "./tree.js";

/**
 * How the directory was left before the damage: shut down cleanly (the marker is there); crashed
 * with the checkpoints (the recovery point names the end: every record flushed); crashed before
 * any recovery-point checkpoint (nothing known flushed); crashed with the recovery point in the
 * middle of the log (records below it flushed, above it not: damage above may be cut, below not).
 */
export type Variant = "clean" | "unclean" | "unclean, no checkpoint" | "unclean, recovery point mid-log";
export const VARIANTS: readonly Variant[] = ["clean", "unclean", "unclean, no checkpoint"];
/** For damage to the segments themselves, where the recovery point decides what may be cut. */
const DATA_VARIANTS: readonly Variant[] = [...VARIANTS, "unclean, recovery point mid-log"];
const CLEAN_AND_UNCLEAN: readonly Variant[] = ["clean", "unclean"];

/**
 * What an open of the mutated directory may do. In every case: nothing but `PagelogError`s with a
 * documented code, no hang, no read larger than the file, every record served is the one
 * appended at its offset, `records()` never ends before `endOffset` without an error, and an
 * open that rejects changes no byte of any file.
 *
 * - `intact`: the mutation is of something the log does not trust (an index, a malformed
 *   checkpoint, a leftover file, the marker's content) or means nothing (the leader epoch):
 *   the open succeeds and every record `[start, end)` reads back, with lookups right.
 * - `intactOrLoud`: either that, or a `PagelogError` (open or read): never a silent loss.
 * - `loud`: the open (or a read) must fail with a `PagelogError`.
 * - `damaged at f`: the log's own records are damaged from offset `f` on (a batch or segment
 *   file). Where those records are known flushed (clean shutdown; or the recovery-point
 *   checkpoint names the end) the result is `intactOrLoud`: a cut would lose flushed records.
 *   With no recovery-point checkpoint nothing is known flushed: recovery may keep a prefix, but
 *   never less than the records before `f`, or fail loudly.
 * - `startPastEnd`: the log-start checkpoint names an offset past the end. After a clean shutdown
 *   that cannot be (the end was checkpointed with it): `loud`. After a crash it can (records past
 *   the recovery point deleted by deleteRecordsBefore, then lost): an empty log at that offset,
 *   or loud.
 */
export type Expect =
  | { readonly kind: "intact"; readonly start?: number }
  | { readonly kind: "intactOrLoud"; readonly start?: number }
  | { readonly kind: "loud" }
  | {
      readonly kind: "damaged";
      readonly at: number;
      readonly batch?: readonly [number, number];
      readonly timestamps?: boolean;
    }
  | { readonly kind: "startPastEnd"; readonly start: number };

export interface Case {
  readonly id: string;
  readonly group: string;
  readonly variants: readonly Variant[];
  readonly expect: Expect;
  /** Paths pagelog does not own that must still be there, byte for byte, after the open and close. */
  readonly mustRemain?: readonly string[];
  mutate(tree: Tree): void;
}

export interface Segment {
  readonly base: number;
  readonly next: number;
  readonly log: string;
  readonly index: string;
  readonly timeindex: string;
  readonly bytes: Uint8Array;
  readonly batches: ReadonlyArray<{
    position: number;
    size: number;
    first: number;
    count: number;
    lastOffsetDelta: number;
  }>;
}

export interface Pristine {
  readonly tree: Tree;
  readonly end: number;
  readonly segments: readonly Segment[];
  /** The recovery point of the "mid-log" variant: the start of the second batch of the second segment. */
  readonly midRecoveryPoint: number;
}

export function describePristine(tree: Tree): Pristine {
  const logs = [...tree.keys()].filter((p) => p.startsWith(`${PARTITION}/`) && p.endsWith(".log")).sort();
  const segments: Segment[] = logs.map((log) => {
    const bytes = tree.get(log) as Uint8Array;
    const base = Number(log.slice(PARTITION.length + 1, PARTITION.length + 21));
    const batches = batchesOf(bytes).map((b) => ({
      position: b.position,
      size: b.size,
      first: b.baseOffset,
      count: b.recordsCount,
      lastOffsetDelta: b.lastOffsetDelta,
    }));
    const last = batches[batches.length - 1]!;
    return {
      base,
      next: last.first + last.lastOffsetDelta + 1,
      log,
      index: log.replace(/\.log$/, ".index"),
      timeindex: log.replace(/\.log$/, ".timeindex"),
      bytes,
      batches,
    };
  });
  return { tree, end: segments[segments.length - 1]!.next, segments, midRecoveryPoint: segments[1]!.batches[1]!.first };
}

const enc = new TextEncoder();
const text = (s: string) => enc.encode(s);
const file = (tree: Tree, path: string) => {
  const v = tree.get(path);
  if (v === undefined || v === "dir") throw new Error(`no file ${path}`);
  return v;
};
const I32_MAX = 2n ** 31n - 1n;
const I32_MIN = -(2n ** 31n);
const I64_MAX = 2n ** 63n - 1n;
const I64_MIN = -(2n ** 63n);

/** A checkpoint's text: `0\n<count>\n` then `topic partition offset\n` lines (Kafka's CheckpointFile). */
export function checkpointText(
  entries: ReadonlyArray<readonly [string, string | number]>,
  options: { version?: string; count?: string } = {},
): string {
  const lines = [
    options.version ?? "0",
    options.count ?? String(entries.length),
    ...entries.map(([name, offset]) => `${name.replace(/-(\d+)$/, " $1")} ${offset}`),
  ];
  return `${lines.join("\n")}\n`;
}

export function generateCases(p: Pristine, randomSeed: number, randomCases: number): Case[] {
  const cases: Case[] = [];
  const add = (c: Case) => cases.push(c);
  const { segments, end } = p;
  const first = segments[0]!;
  const last = segments[segments.length - 1]!;
  const partitionFiles = segments.flatMap((s) => [s.log, s.index, s.timeindex]);
  const damagedAtByte = (s: Segment, byte: number) => {
    const b = s.batches.find((x) => x.position + x.size > byte);
    return b === undefined ? s.next : b.first;
  };

  // ---- sizes: every file cut or grown ----------------------------------------------------------
  const sizeTargets = [
    ...partitionFiles,
    RECOVERY_CHECKPOINT,
    START_CHECKPOINT,
    MARKER,
    ...[...p.tree.keys()].filter((k) => k.startsWith(`${OTHER}/`) && p.tree.get(k) !== "dir"),
  ];
  for (const path of sizeTargets) {
    const size = file(p.tree, path).length;
    const seg = segments.find((s) => s.log === path);
    const variants =
      path === RECOVERY_CHECKPOINT
        ? CLEAN_AND_UNCLEAN
        : path === MARKER
          ? (["clean"] as const)
          : seg !== undefined
            ? DATA_VARIANTS
            : VARIANTS;
    const sizes = new Map<string, (b: Uint8Array) => Uint8Array>([
      ["0", () => new Uint8Array(0)],
      ["1", (b) => b.slice(0, 1)],
      ["size-1", (b) => b.slice(0, b.length - 1)],
      ["odd half", (b) => b.slice(0, (b.length >> 1) | 1)],
      ["size+1 (a zero)", (b) => concat([b, new Uint8Array(1)])],
      ["size+13 (garbage)", (b) => concat([b, seededBytes(13, 7)])],
      ["size+4096 (zeros)", (b) => concat([b, new Uint8Array(4096)])],
      ["size+61 (a zeroed batch header)", (b) => concat([b, new Uint8Array(61)])],
      ["size+70 (a copy of its first bytes)", (b) => concat([b, b.slice(0, 70)])],
    ]);
    for (const [label, resize] of sizes) {
      const bytes = resize(file(p.tree, path));
      if (bytes.length === size) continue;
      let expect: Expect;
      if (seg !== undefined)
        expect = { kind: "damaged", at: bytes.length < size ? damagedAtByte(seg, bytes.length) : seg.next };
      else expect = { kind: "intact" };
      add({
        id: `${path} resized to ${bytes.length} bytes (${label}, was ${size})`,
        group: `sizes: ${kindOf(path)}`,
        variants,
        expect,
        mutate: (t) => void t.set(path, bytes.slice()),
      });
    }
  }

  // ---- batch header fields, in place -------------------------------------------------------------
  type Target = { seg: Segment; b: number; label: string };
  const targets: Target[] = [
    { seg: first, b: 0, label: "first batch of the first segment" },
    { seg: first, b: first.batches.length - 1, label: "last batch of the first segment" },
    { seg: last, b: 0, label: "first batch of the last segment" },
    { seg: last, b: last.batches.length - 1, label: "last batch of the log" },
  ].filter((t, k, all) => all.findIndex((u) => u.seg === t.seg && u.b === t.b) === k);
  for (const { seg, b, label } of targets) {
    const batch = seg.batches[b]!;
    const at = batch.position;
    const old = (f: FieldName) => getField(seg.bytes, at, f);
    const values: Record<FieldName, bigint[]> = {
      baseOffset: [
        old("baseOffset") - 1n,
        old("baseOffset") + 1n,
        0n,
        old("baseOffset") + BigInt(batch.count),
        I32_MAX,
        I32_MAX + 1n,
        2n ** 32n,
        2n ** 53n,
        I64_MAX,
        -1n,
        I64_MIN,
      ],
      length: [
        0n,
        1n,
        48n,
        49n,
        old("length") - 13n,
        old("length") - 1n,
        old("length") + 1n,
        old("length") + 12n,
        old("length") + 300n,
        I32_MAX,
        -1n,
        I32_MIN,
      ],
      partitionLeaderEpoch: [0n, 7n, -2n, I32_MAX],
      magic: [0n, 1n, 3n, -1n],
      crc: [old("crc") ^ 1n],
      attributes: [
        ...[1n, 2n, 3n, 4n, 5n, 6n, 7n].map((c) => (old("attributes") & ~7n) | c),
        old("attributes") | 8n,
        old("attributes") | 16n,
        old("attributes") | 32n,
        old("attributes") | 48n,
        old("attributes") | 64n,
        old("attributes") | 128n,
        0x7fffn,
        -1n,
      ],
      lastOffsetDelta: [
        -1n,
        0n,
        old("lastOffsetDelta") - 1n,
        old("lastOffsetDelta") + 1n,
        old("lastOffsetDelta") + 1000n,
        I32_MAX,
        I32_MIN,
      ],
      baseTimestamp: [
        -1n,
        0n,
        old("baseTimestamp") + 1n,
        old("baseTimestamp") - 1_000_000n,
        2n ** 53n,
        I64_MAX,
        I64_MIN,
      ],
      maxTimestamp: [-1n, 0n, old("maxTimestamp") + 1n, old("maxTimestamp") - 1n, 2n ** 53n, I64_MAX, I64_MIN],
      producerId: [0n, 1234n, -2n, I64_MAX],
      producerEpoch: [0n, 5n, -2n],
      baseSequence: [0n, 5n, -2n, I32_MAX],
      recordsCount: [0n, -1n, old("recordsCount") - 1n, old("recordsCount") + 1n, 1000n, I32_MAX, I32_MIN],
    };
    for (const field of Object.keys(FIELDS) as FieldName[]) {
      const covered = FIELDS[field].at >= 21;
      for (const value of new Set(values[field])) {
        if (BigInt.asUintN(FIELDS[field].width * 8, value) === BigInt.asUintN(FIELDS[field].width * 8, old(field)))
          continue;
        // A field the CRC covers: CRC-fixed (the batch passes its CRC) and stale. The length: the
        // CRC is over [21, 12 + length), so fixing it over the new range means something too.
        const fixes: Array<"fixed" | "stale"> = covered || field === "length" ? ["fixed", "stale"] : ["stale"];
        for (const crc of fixes) {
          const bytes = seg.bytes.slice();
          setField(bytes, at, field, value);
          if (crc === "fixed" && !fixCrc(bytes, at)) continue;
          const expect: Expect =
            field === "partitionLeaderEpoch"
              ? { kind: "intact" }
              : {
                  kind: "damaged",
                  at: batch.first,
                  batch: [batch.first, batch.first + batch.count],
                  timestamps: field === "baseTimestamp" || field === "maxTimestamp" || field === "attributes",
                };
          add({
            id: `${seg.log} ${label} (offsets ${batch.first}..${batch.first + batch.count - 1}): ${field} ${old(field)} -> ${value}${covered || field === "length" ? `, CRC ${crc}` : ""}`,
            group: `batch header: ${field}`,
            variants: DATA_VARIANTS,
            expect,
            mutate: (t) => void t.set(seg.log, bytes.slice()),
          });
        }
      }
    }
  }

  // ---- record fields and batch framing (size-changing: only a segment's last batch) ------------------
  for (const { seg, b, label } of targets.filter((t) => t.b === t.seg.batches.length - 1)) {
    const batch = seg.batches[b]!;
    const original = seg.bytes.slice(batch.position, batch.position + batch.size);
    const seen = new Set<string>();
    const expectFor = (timestamps = false): Expect => ({
      kind: "damaged",
      at: batch.first,
      batch: [batch.first, batch.first + batch.count],
      timestamps,
    });
    const emit = (what: string, group: string, newBatch: Uint8Array, timestamps = false) => {
      const key = Buffer.from(newBatch).toString("hex");
      if (seen.has(key) || key === Buffer.from(original).toString("hex")) return;
      seen.add(key);
      const bytes = splice(seg.bytes, batch.position, batch.position + batch.size, newBatch);
      add({
        id: `${seg.log} ${label} (offsets ${batch.first}..${batch.first + batch.count - 1}): ${what}`,
        group,
        variants: DATA_VARIANTS,
        expect: expectFor(timestamps),
        mutate: (t) => void t.set(seg.log, bytes.slice()),
      });
    };
    const split0 = splitBatch(original);
    const recordIndexes = [...new Set([0, split0.records.length - 1])];
    for (const r of recordIndexes) {
      for (const fieldName of split0.records[r]!.map((f) => f.name)) {
        const fieldOf = (s: ReturnType<typeof splitBatch>) => s.records[r]!.find((f) => f.name === fieldName)!;
        const cur = fieldOf(split0).bytes;
        const readVarintValue = () => {
          let v = 0n;
          for (let k = cur.length - 1; k >= 0; k--) v = (v << 7n) | BigInt(cur[k]! & 0x7f);
          return (v >> 1n) ^ -(v & 1n);
        };
        let replacements: Array<[string, Uint8Array]> = [];
        const isVarint = !["attributes", "key", "value"].includes(fieldName) && !/\.(key|value)$/.test(fieldName);
        const bits = fieldName === "timestampDelta" ? 64 : 32;
        if (isVarint) {
          const v = readVarintValue();
          const nums: bigint[] = [v - 1n, v + 1n, 0n, -1n, -2n, 1000n, I32_MAX, I32_MIN];
          if (fieldName === "timestampDelta") nums.push(2n ** 62n, I64_MAX, I64_MIN);
          if (fieldName === "offsetDelta") {
            const lod = getField(original, 0, "lastOffsetDelta");
            nums.push(lod + 1n, lod);
            if (r > 0) nums.push(BigInt(r - 1)); // the previous record's delta: a duplicate offset
          }
          // Not null <-> empty: that is a valid record with other content, which no reader can tell.
          const nullable = /(^key|^value|\.value)Length$/.test(fieldName);
          replacements = nums
            .filter((n) => !(nullable && ((v === -1n && n === 0n) || (v === 0n && n === -1n))))
            .map((n) => [`${fieldName} ${v} -> ${n}`, zigzag(n, bits)]);
          const max = bits === 32 ? 5 : 10;
          replacements.push(
            [`${fieldName} ${v} non-canonical in 2 bytes`, paddedVarint(v, 2, bits)],
            [`${fieldName} ${v} non-canonical in ${max} bytes`, paddedVarint(v, max, bits)],
            [`${fieldName} ${v} over-long: ${max + 1} bytes`, paddedVarint(v, max + 1, bits)],
            [`${fieldName} over-long: ${max + 5} bytes`, paddedVarint(v, max + 5, bits)],
            [`${fieldName} overflowing ${bits} bits`, Uint8Array.from([...new Array(max - 1).fill(0xff), 0x7f])],
            [`${fieldName} a continuation byte with nothing after it`, Uint8Array.of(0x80)],
          );
        } else if (fieldName === "attributes") {
          replacements = [
            ["record attributes 0 -> 1", Uint8Array.of(1)],
            ["record attributes 0 -> 0xff", Uint8Array.of(0xff)],
          ];
        } else if (/^header\d+\.key$/.test(fieldName) && cur.length > 0) {
          replacements = [
            [`${fieldName} not UTF-8 (0xff)`, Uint8Array.of(0xff, ...cur.slice(1))],
            [`${fieldName} a cut UTF-8 sequence (0xc3)`, Uint8Array.of(0xc3, ...cur.slice(1))],
          ];
        }
        for (const [what, bytes] of replacements) {
          for (const keepRecordLengths of fieldName === "length" ? [true] : [false, true]) {
            for (const crc of ["fixed", "stale"] as const) {
              const s = splitBatch(original);
              fieldOf(s).bytes = bytes;
              emit(
                `record ${r}: ${what}${keepRecordLengths ? ", record length kept" : ""}, CRC ${crc}`,
                `record fields: ${fieldName.replace(/^header\d+\./, "header.")}`,
                joinBatch(s, { keepRecordLengths, crc }),
                fieldName === "timestampDelta",
              );
            }
          }
        }
      }
    }
    // Whole records added, dropped, doubled; bytes left over.
    for (const crc of ["fixed", "stale"] as const) {
      const lod = getField(original, 0, "lastOffsetDelta");
      const n = split0.records.length;
      if (n > 1) {
        const dropped = splitBatch(original);
        dropped.records.pop();
        emit(
          `last record dropped (count fixed, lastOffsetDelta kept), CRC ${crc}`,
          "batch framing",
          joinBatch(dropped, { crc }),
        );
        const shorter = splitBatch(original);
        shorter.records.pop();
        setField(shorter.header, 0, "lastOffsetDelta", lod - 1n);
        emit(`last record dropped (a valid shorter batch), CRC ${crc}`, "batch framing", joinBatch(shorter, { crc }));
        const swapped = splitBatch(original);
        swapped.records.reverse();
        emit(`records in reverse order, CRC ${crc}`, "batch framing", joinBatch(swapped, { crc }));
      }
      const doubled = splitBatch(original);
      doubled.records.push(doubled.records[n - 1]!.map((f) => ({ ...f })));
      emit(`last record twice (same offset delta), CRC ${crc}`, "batch framing", joinBatch(doubled, { crc }));
      emit(`last record twice, count kept, CRC ${crc}`, "batch framing", joinBatch(doubled, { crc, keepCount: true }));
      for (const trailing of [Uint8Array.of(0), new Uint8Array(7), seededBytes(5, 3)]) {
        emit(
          `${trailing.length} bytes after the last record, CRC ${crc}`,
          "batch framing",
          joinBatch(splitBatch(original), { crc, trailing }),
        );
      }
      emit(
        `records count kept, records section empty, CRC ${crc}`,
        "batch framing",
        joinBatch({ header: split0.header, records: [] }, { crc, keepCount: true }),
      );
    }
    // Compressed: the same records gzipped (a valid batch, which must read back the same), and
    // gzip streams cut, flipped, followed by garbage, or inflating far past any limit (a bomb).
    const gz = (records: Uint8Array, label: string, group: string, expectIntact = false) => {
      const header = split0.header.slice();
      setField(header, 0, "attributes", (getField(header, 0, "attributes") & ~7n) | 1n);
      const out = concat([header, records]);
      setField(out, 0, "length", BigInt(out.length - 12));
      fixCrc(out, 0);
      const bytes = splice(seg.bytes, batch.position, batch.position + batch.size, out);
      add({
        id: `${seg.log} ${label} (offsets ${batch.first}..${batch.first + batch.count - 1}): gzip: ${group}, CRC fixed`,
        group: "batch framing: gzip",
        variants: DATA_VARIANTS,
        expect: expectIntact ? { kind: "intact" } : expectFor(),
        mutate: (t) => void t.set(seg.log, bytes.slice()),
      });
    };
    const plainRecords = original.slice(61);
    const zipped = new Uint8Array(gzipSync(plainRecords));
    gz(zipped, label, "the same records compressed (a valid batch)", true);
    gz(zipped.slice(0, zipped.length - 5), label, "the stream cut 5 bytes short");
    gz(
      Uint8Array.from(zipped, (v, k) => (k === zipped.length >> 1 ? v ^ 0x10 : v)),
      label,
      "a byte of the stream flipped",
    );
    gz(concat([zipped, seededBytes(9, 9)]), label, "9 bytes of garbage after the stream");
    gz(
      new Uint8Array(gzipSync(concat([plainRecords, plainRecords]))),
      label,
      "the records twice inside (count says once)",
    );
    gz(new Uint8Array(gzipSync(plainRecords.slice(0, plainRecords.length - 3))), label, "the records cut short inside");
    gz(bomb(), label, "a bomb: 200 MiB of zeros inside");
  }

  // ---- index entries: each field of each entry set to a plausible wrong value ------------------------------
  // An index is not trusted: whatever its entries say, every record reads back and every lookup
  // agrees with a linear scan (rebuilt at open, or checked where a lookup lands).
  for (const seg of segments) {
    for (const [path, entrySize, fields] of [
      [
        seg.index,
        8,
        [
          ["relative offset", 0, 4],
          ["position", 4, 4],
        ],
      ],
      [
        seg.timeindex,
        12,
        [
          ["timestamp", 0, 8],
          ["relative offset", 8, 4],
        ],
      ],
    ] as const) {
      const old = file(p.tree, path);
      const entries = old.length / entrySize;
      const read = (e: number, at: number, width: number) => {
        let v = 0n;
        for (let k = 0; k < width; k++) v = (v << 8n) | BigInt(old[e * entrySize + at + k]!);
        return BigInt.asIntN(width * 8, v);
      };
      for (let e = 0; e < entries; e++) {
        for (const [name, at, width] of fields) {
          const v = read(e, at, width);
          const values = new Set<bigint>([v - 1n, v + 1n, 0n, -1n, v + 1000n]);
          if (e > 0) values.add(read(e - 1, at, width));
          if (e + 1 < entries) values.add(read(e + 1, at, width));
          values.delete(v);
          for (const value of values) {
            const bytes = old.slice();
            let u = BigInt.asUintN(width * 8, value);
            for (let k = width - 1; k >= 0; k--) {
              bytes[e * entrySize + at + k] = Number(u & 0xffn);
              u >>= 8n;
            }
            add({
              id: `${path} entry ${e} of ${entries}: ${name} ${v} -> ${value}`,
              group: `index entries: ${path.endsWith(".timeindex") ? ".timeindex" : ".index"}`,
              variants: VARIANTS,
              expect: { kind: "intact" },
              mutate: (t) => void t.set(path, bytes.slice()),
            });
          }
        }
      }
    }
  }

  // ---- checkpoints ---------------------------------------------------------------------------------
  const otherEntry = [OTHER, 2] as const;
  const ckptCases: Array<[string, string | Uint8Array, Expect | "byFile"]> = [];
  const ours = (v: string | number, extra: { version?: string; count?: string } = {}) =>
    checkpointText(
      ([otherEntry, [PARTITION, v] as const] as Array<readonly [string, string | number]>).sort(([a], [b]) =>
        a < b ? -1 : 1,
      ),
      extra,
    );
  for (const v of [0, 1, end - 1, end]) ckptCases.push([`value ${v} (at or below the end ${end})`, ours(v), "byFile"]);
  for (const v of [end + 1, end + 1000, 2 ** 31, 2 ** 53 - 1])
    ckptCases.push([`value ${v} (past the end ${end})`, ours(v), "byFile"]);
  for (const v of [
    "9223372036854775807",
    "99999999999999999999999",
    "-1",
    "abc",
    "1e3",
    "0x10",
    "+5",
    "05",
    "5.0",
    "",
    " 5",
    "5 ",
  ]) {
    ckptCases.push([`value ${JSON.stringify(v)} (not a number the format allows)`, ours(v), { kind: "intactOrLoud" }]);
  }
  ckptCases.push(
    ["version 1", ours(0, { version: "1" }), { kind: "intact" }],
    ["version 00", ours(0, { version: "00" }), { kind: "intact" }],
    ["version -1", ours(0, { version: "-1" }), { kind: "intact" }],
    ["count 3 for 2 entries", ours(0, { count: "3" }), { kind: "intact" }],
    ["count 1 for 2 entries", ours(0, { count: "1" }), { kind: "intact" }],
    ["count -1", ours(0, { count: "-1" }), { kind: "intact" }],
    ["count 999999999999 (huge)", ours(0, { count: "999999999999" }), { kind: "intact" }],
    ["count 2^53+1", ours(0, { count: "9007199254740993" }), { kind: "intact" }],
    ["count x", ours(0, { count: "x" }), { kind: "intact" }],
    ["no trailing newline", ours(0).slice(0, -1), { kind: "intact" }],
    ["CRLF line ends", ours(0).replace(/\n/g, "\r\n"), { kind: "intact" }],
    ["a byte-order mark", `\ufeff${ours(0)}`, { kind: "intact" }],
    ["tabs for spaces", ours(0).replace(/ /g, "\t"), { kind: "intact" }],
    ["a NUL byte", ours(0).replace("0\n", "0\u0000\n"), { kind: "intact" }],
    ["not UTF-8", concat([Uint8Array.of(0xff, 0xfe), text(ours(0))]), { kind: "intact" }],
    ["an extra line after the entries", `${ours(0)}junk\n`, { kind: "intact" }],
    ["only the other partition", checkpointText([otherEntry]), { kind: "intact" }],
    // Another partition's entry is that partition's business: hostile-0 opens whatever it says.
    [
      `the other partition past its end (1000)`,
      checkpointText([
        [OTHER, 1000],
        [PARTITION, 0],
      ]),
      { kind: "intact" },
    ],
    [
      "an entry for a partition that does not exist",
      checkpointText([
        ["ghost-3", 77],
        [PARTITION, 0],
      ]),
      { kind: "intact" },
    ],
    [
      "a partition number past int32",
      checkpointText([]).replace("0\n0\n", `0\n2\nhostile 99999999999 ${end + 5}\nhostile 0 0\n`),
      { kind: "intactOrLoud" },
    ],
    [
      "a topic that is not a valid name",
      checkpointText([]).replace("0\n0\n", `0\n2\nno/pe 0 5\nhostile 0 0\n`),
      { kind: "intactOrLoud" },
    ],
    ["no entries", checkpointText([]), { kind: "intact" }],
    // Read into a map, as Kafka's CheckpointFile does: the last entry wins.
    [
      `our partition twice (0, then value ${end + 5})`,
      checkpointText([
        [PARTITION, 0],
        [PARTITION, end + 5],
      ]),
      "byFile",
    ],
    [
      `our partition twice (${end + 5}, then 0)`,
      checkpointText([
        [PARTITION, end + 5],
        [PARTITION, 0],
      ]),
      { kind: "intactOrLoud" },
    ],
    [
      "our partition as topic 'hostile' partition '00'",
      checkpointText([]).replace("0\n0\n", `0\n1\nhostile 00 ${end + 5}\n`),
      { kind: "intactOrLoud" },
    ],
    [
      "100,000 entries (about 2.5 MB)",
      checkpointText([...Array.from({ length: 99_999 }, (_, k) => [`t${k}-0`, 1] as const), [PARTITION, 0]]),
      { kind: "intactOrLoud" },
    ],
    ["only zeros (4 KiB)", new Uint8Array(4096), { kind: "intact" }],
  );
  for (const [path, name] of [
    [RECOVERY_CHECKPOINT, "recovery point"],
    [START_CHECKPOINT, "log start"],
  ] as const) {
    for (const [what, content, expected] of ckptCases) {
      let expect: Expect;
      if (expected !== "byFile") expect = expected;
      else {
        const v = Number(/value (\d+)/.exec(what)![1]);
        if (path === RECOVERY_CHECKPOINT) expect = v <= end ? { kind: "intact" } : { kind: "loud" };
        else expect = v <= end ? { kind: "intact", start: v } : { kind: "startPastEnd", start: v };
      }
      const bytes = typeof content === "string" ? text(content) : content;
      add({
        id: `${path}: ${what}`,
        group: `checkpoint: ${name}`,
        variants: path === RECOVERY_CHECKPOINT ? CLEAN_AND_UNCLEAN : VARIANTS,
        expect,
        mutate: (t) => void t.set(path, bytes.slice()),
      });
    }
    add({
      id: `${path}: a directory`,
      group: `checkpoint: ${name}`,
      variants: path === RECOVERY_CHECKPOINT ? CLEAN_AND_UNCLEAN : VARIANTS,
      expect: { kind: "intactOrLoud" },
      mutate: (t) => void t.set(path, "dir"),
    });
    add({
      id: `${path}: missing`,
      group: `checkpoint: ${name}`,
      variants: ["clean"],
      expect: path === RECOVERY_CHECKPOINT ? { kind: "intact" } : { kind: "intact" },
      mutate: (t) => void t.delete(path),
    });
  }

  // ---- the marker and the lock ----------------------------------------------------------------------------
  for (const [what, content] of [
    ["empty", new Uint8Array(0)],
    ["garbage", seededBytes(40, 11)],
    ["another version", text('{"version":1,"brokerEpoch":7}')],
    ["1 MiB of zeros", new Uint8Array(1 << 20)],
  ] as const) {
    add({
      id: `${MARKER}: ${what}`,
      group: "marker",
      variants: VARIANTS,
      expect: { kind: "intact" },
      mutate: (t) => void t.set(MARKER, content.slice()),
    });
  }
  add({
    id: `${MARKER}: an empty directory`,
    group: "marker",
    variants: VARIANTS,
    expect: { kind: "intactOrLoud" },
    mutate: (t) => void t.set(MARKER, "dir"),
  });
  add({
    id: `${MARKER}: a directory holding a file`,
    group: "marker",
    variants: VARIANTS,
    expect: { kind: "intactOrLoud" },
    mustRemain: [`${MARKER}/x`],
    mutate: (t) => {
      t.set(MARKER, "dir");
      t.set(`${MARKER}/x`, text("x"));
    },
  });
  add({
    id: `${LOCK}: a stale lock file with a pid in it`,
    group: "lock",
    variants: VARIANTS,
    expect: { kind: "intact" },
    mutate: (t) => void t.set(LOCK, text("12345\n")),
  });
  add({
    id: `${LOCK}: a directory`,
    group: "lock",
    variants: VARIANTS,
    expect: { kind: "intactOrLoud" },
    mutate: (t) => void t.set(LOCK, "dir"),
  });

  // ---- leftovers: temp, swap, deleted, cleaned --------------------------------------------------------------
  const seg0 = first.log.slice(PARTITION.length + 1, -4);
  const leftovers: Array<[string, Uint8Array | "dir", Expect, string[]?]> = [
    [`${RECOVERY_CHECKPOINT}.tmp`, seededBytes(30, 5), { kind: "intact" }],
    [`${START_CHECKPOINT}.tmp`, text(checkpointText([[PARTITION, end + 50]])), { kind: "intact" }],
    [`${RECOVERY_CHECKPOINT}.tmp`, text(checkpointText([[PARTITION, end + 50]])), { kind: "intact" }],
    [`${MARKER}.tmp`, text("{}"), { kind: "intact" }],
    ["notes.tmp", text("not pagelog's"), { kind: "intact" }, ["notes.tmp"]],
    ["backup.tmp", "dir", { kind: "intact" }, ["backup.tmp/data"]],
    [`${PARTITION}/${seg0}.log.deleted`, first.bytes, { kind: "intact" }],
    [`${PARTITION}/${seg0}.index.deleted`, seededBytes(16, 1), { kind: "intact" }],
    [`${PARTITION}/${offsetName(end + 100)}.log.deleted`, first.bytes, { kind: "intact" }],
    [`${PARTITION}/${seg0}.log.cleaned`, first.bytes, { kind: "intact" }],
    [`${PARTITION}/${seg0}.log.tmp`, seededBytes(100, 2), { kind: "intact" }],
    [`${PARTITION}/${offsetName(end)}.log.tmp`, last.bytes, { kind: "intact" }],
    [`${PARTITION}/${offsetName(end + 7)}.index`, seededBytes(24, 4), { kind: "intact" }],
    [`${PARTITION}/${offsetName(end + 7)}.timeindex`, seededBytes(36, 4), { kind: "intact" }],
    [`${PARTITION}/${offsetName(1)}.index`, new Uint8Array(0), { kind: "intact" }],
    [`${PARTITION}/${seg0}.log.swap`, first.bytes, { kind: "intactOrLoud" }],
    [`${PARTITION}/${seg0}.log.swap`, new Uint8Array(0), { kind: "intactOrLoud" }],
    [`${PARTITION}/${offsetName(end)}.log.swap`, last.bytes, { kind: "intactOrLoud" }],
    [`${PARTITION}/${seg0}.log.deleted`, "dir", { kind: "intactOrLoud" }],
    [`${PARTITION}/notes.txt`, text("mine"), { kind: "intact" }, [`${PARTITION}/notes.txt`]],
    [`${PARTITION}/sub`, "dir", { kind: "intact" }],
  ];
  for (const [path, content, expect, remain] of leftovers) {
    add({
      id: `leftover ${path}${content === "dir" ? " (a directory)" : ` (${content.length} bytes)`}`,
      group: "leftovers",
      variants: VARIANTS,
      expect,
      ...(remain === undefined ? {} : { mustRemain: remain }),
      mutate: (t) => {
        t.set(path, content === "dir" ? "dir" : content.slice());
        if (path === "backup.tmp") t.set("backup.tmp/data", text("keep me"));
      },
    });
  }

  // ---- names: stray and overlapping segments, renamed and missing files, partition directories -------------------
  for (const seg of segments) {
    for (const [k, batch] of seg.batches.entries()) {
      if (batch.first === seg.base) continue;
      const copy = seg.bytes.slice(batch.position, batch.position + batch.size);
      add({
        id: `stray ${offsetName(batch.first)}.log: a copy of batch ${k} of ${seg.log} (offsets ${batch.first}..${batch.first + batch.count - 1})`,
        group: "names: stray overlapping segments",
        variants: DATA_VARIANTS,
        // With no recovery-point checkpoint nothing is known flushed, and a segment overlapping
        // the previous one is what an interrupted truncateTo leaves: a prefix is allowed there.
        expect: { kind: "damaged", at: batch.first },
        mutate: (t) => void t.set(`${PARTITION}/${offsetName(batch.first)}.log`, copy.slice()),
      });
    }
  }
  const strays: Array<[string, Uint8Array | "dir"]> = [
    [`${offsetName(end + 100)}.log`, first.bytes],
    [`${offsetName(end)}.log`, first.bytes],
    [`${offsetName(end)}.log`, new Uint8Array(0)],
    [`${offsetName(end + 100)}.log`, new Uint8Array(0)],
    [`${offsetName(end + 100)}.log`, "dir"],
    [`${offsetName(end)}.index`, "dir"],
    ["0.log", first.bytes],
    [`${seg0.toUpperCase()}.LOG`, first.bytes],
    [`0${seg0}.log`, first.bytes],
    ["99999999999999999999.log", first.bytes],
    ["09223372036854775807.log", first.bytes],
    ["18446744073709551615.log", first.bytes],
    ["-0000000000000000001.log", first.bytes],
    ["0000000000000000000a.log", first.bytes],
    [`${seg0}.log.bak`, first.bytes],
    [".log", first.bytes],
  ];
  for (const [name, content] of strays) {
    add({
      id: `stray ${name}${content === "dir" ? " (a directory)" : content === first.bytes ? ` (a copy of ${first.log})` : ` (${content.length} bytes)`}`,
      group: "names: stray files",
      variants: VARIANTS,
      expect: { kind: "intactOrLoud" },
      mutate: (t) => void t.set(`${PARTITION}/${name}`, content === "dir" ? "dir" : content.slice()),
    });
  }
  for (const seg of segments) {
    for (const suffix of [".log", ".index", ".timeindex"] as const) {
      const path = seg.log.replace(/\.log$/, suffix);
      add({
        id: `${path} missing`,
        group: "names: missing files",
        variants: DATA_VARIANTS,
        expect: suffix === ".log" ? { kind: "damaged", at: seg.base } : { kind: "intact" },
        mutate: (t) => void t.delete(path),
      });
    }
    if (seg !== first) {
      for (const delta of [1, -1]) {
        add({
          id: `${seg.log} and its indexes renamed to base ${seg.base + delta}`,
          group: "names: renamed segments",
          variants: DATA_VARIANTS,
          // Renamed down, it overlaps the previous segment: with no checkpoint, recovery may take
          // that for an interrupted truncateTo and cut the batch holding the new base.
          expect: {
            kind: "damaged",
            at:
              delta > 0
                ? seg.base
                : segments[segments.indexOf(seg) - 1]!.batches.find(
                    (x) => x.first + x.lastOffsetDelta >= seg.base + delta,
                  )!.first,
          },
          mutate: (t) => {
            for (const suffix of [".log", ".index", ".timeindex"]) {
              const from = seg.log.replace(/\.log$/, suffix);
              const bytes = t.get(from)!;
              t.delete(from);
              t.set(`${PARTITION}/${offsetName(seg.base + delta)}${suffix}`, bytes);
            }
          },
        });
      }
    }
  }
  add({
    id: `${first.log} also under the name of the last segment's base (its copy replaces it)`,
    group: "names: renamed segments",
    variants: DATA_VARIANTS,
    expect: { kind: "damaged", at: last.base },
    mutate: (t) => void t.set(last.log, first.bytes.slice()),
  });
  add({
    id: `${PARTITION} is a file`,
    group: "names: partition directories",
    variants: VARIANTS,
    expect: { kind: "loud" },
    mutate: (t) => {
      for (const k of [...t.keys()]) if (k.startsWith(`${PARTITION}/`)) t.delete(k);
      t.set(PARTITION, text("not a directory"));
    },
  });
  for (const [name, content] of [
    ["hostile-00", "dir"],
    ["hostile-1", text("a file")],
    ["-0", "dir"],
    ["hostile-0.tmp", "dir"],
    ["hostile-0.deleted", "dir"],
    ["x", text("y")],
  ] as const) {
    add({
      id: `stray ${name} in the log directory${content === "dir" ? " (a directory holding a copy of the first segment)" : ""}`,
      group: "names: partition directories",
      variants: VARIANTS,
      expect: { kind: "intact" },
      mustRemain: content === "dir" ? [`${name}/${offsetName(0)}.log`] : [name],
      mutate: (t) => {
        t.set(name, content === "dir" ? "dir" : content.slice());
        if (content === "dir") t.set(`${name}/${offsetName(0)}.log`, first.bytes.slice());
      },
    });
  }

  // ---- seeded random damage -----------------------------------------------------------------------------------
  let x = randomSeed >>> 0 || 1;
  const rand = (n: number) => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) % n;
  };
  const interesting = [
    0n,
    1n,
    -1n,
    2n,
    48n,
    49n,
    61n,
    127n,
    128n,
    255n,
    256n,
    0x7fffn,
    0x8000n,
    0xffffn,
    I32_MAX,
    I32_MIN,
    I32_MAX + 1n,
    2n ** 32n - 1n,
    2n ** 53n,
    I64_MAX,
    I64_MIN,
  ];
  const structural: FieldName[] = ["length", "magic", "attributes", "lastOffsetDelta", "recordsCount", "baseOffset"];
  for (let n = 0; n < randomCases; n++) {
    const seg = segments[rand(segments.length)]!;
    const kind = rand(10);
    const caseSeed = x;
    if (kind >= 8) {
      // An index: random bytes over it, or a random size.
      const path = kind === 8 ? seg.index : seg.timeindex;
      const old = file(p.tree, path);
      const size = rand(3) === 0 ? rand(old.length + 40) : old.length;
      const bytes = concat([old, new Uint8Array(Math.max(0, size - old.length))]).slice(0, size);
      const hits = 1 + rand(4);
      for (let h = 0; h < hits && size > 0; h++) bytes[rand(size)] = rand(256);
      add({
        id: `random #${n} (seed ${caseSeed}): ${path} ${hits} random bytes, size ${size}`,
        group: "random: indexes",
        variants: VARIANTS,
        expect: { kind: "intact" },
        mutate: (t) => void t.set(path, bytes.slice()),
      });
      continue;
    }
    const batch = seg.batches[rand(seg.batches.length)]!;
    const bytes = seg.bytes.slice();
    let what: string;
    let crcFixed = false;
    if (kind < 4) {
      // Bytes overwritten anywhere in the batch, CRC left stale.
      const hits = 1 + rand(3);
      const at: number[] = [];
      for (let h = 0; h < hits; h++) {
        const pos = batch.position + rand(batch.size);
        bytes[pos] = rand(256);
        at.push(pos);
      }
      what = `bytes ${at.join(", ")} overwritten`;
    } else {
      // A structural header field set to an interesting value, the CRC fixed.
      const field = structural[rand(structural.length)]!;
      const value = interesting[rand(interesting.length)]!;
      setField(bytes, batch.position, field, value);
      crcFixed = fixCrc(bytes, batch.position);
      what = `${field} of the batch at byte ${batch.position} set to ${value}${crcFixed ? ", CRC fixed" : ""}`;
    }
    const same = bytes.every((v, k) => v === seg.bytes[k]);
    if (same) continue;
    add({
      id: `random #${n} (seed ${caseSeed}): ${seg.log} ${what}`,
      group: "random: segments",
      variants: DATA_VARIANTS,
      expect: { kind: "damaged", at: batch.first, batch: [batch.first, batch.first + batch.count], timestamps: false },
      mutate: (t) => void t.set(seg.log, bytes.slice()),
    });
  }
  return cases;
}

function kindOf(path: string): string {
  if (path.endsWith(".log")) return "segment .log";
  if (path.endsWith(".timeindex")) return ".timeindex";
  if (path.endsWith(".index")) return ".index";
  return path.includes("/") ? path.split("/").pop()! : path;
}

let bombBytes: Uint8Array | undefined;
/** 200 MiB of zeros, gzipped (about 200 KB), made once. */
function bomb(): Uint8Array {
  // Run-length matching only (Z_RLE): the same size of stream for zeros, in a third of the time.
  bombBytes ??= new Uint8Array(gzipSync(new Uint8Array(200 << 20), { level: 9, strategy: constants.Z_RLE }));
  return bombBytes;
}
