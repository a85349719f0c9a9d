/*
 * Isolation against a model of Kafka's consumer: random broker logs (plain, idempotent and
 * transactional batches of three producers, commit and abort markers, some stray, segment rolls),
 * read whole and from a random offset, at both levels, through `records()` and `read()`. The model
 * is the consumer's rule written plainly: a transactional record is aborted when the first marker
 * of its producer after it is an ABORT; the last stable offset is the first offset of the oldest
 * transaction with no marker; control records are never read.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { encodeBatch } from "../../../../src/format/api.js";
import { LogDir } from "../../../../src/log/log-dir.js";
import type { Isolation } from "../../../../src/log/read/log-read.js";
import { SimStorage } from "../../../../src/storage/sim-storage.js";
import { fastCheckParams } from "../../../support/seed.js";
import { NAME, segPath, writeFile } from "../helpers.js";

type Step =
  | { kind: "plain"; count: number }
  | { kind: "idempotent"; count: number }
  | { kind: "tx"; producer: number; count: number }
  | { kind: "marker"; producer: number; commit: boolean }
  | { kind: "roll" };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant("plain" as const), count: fc.integer({ min: 1, max: 3 }) }),
  fc.record({ kind: fc.constant("idempotent" as const), count: fc.integer({ min: 1, max: 2 }) }),
  fc.record({
    kind: fc.constant("tx" as const),
    producer: fc.integer({ min: 1, max: 3 }),
    count: fc.integer({ min: 1, max: 3 }),
  }),
  fc.record({ kind: fc.constant("marker" as const), producer: fc.integer({ min: 1, max: 3 }), commit: fc.boolean() }),
  fc.constant({ kind: "roll" as const }),
);

interface Model {
  /** Offsets of data records: with `aborted` and `open` set for transactional ones. */
  records: { offset: number; aborted: boolean; open: boolean }[];
  lastStable: number;
  end: number;
}

/** Writes the steps as segments; returns the storage and what a consumer reads. */
async function build(steps: readonly Step[]): Promise<{ sim: SimStorage; model: Model }> {
  const sim = new SimStorage({ seed: 7 });
  await sim.mkdir(NAME);
  const segments: { base: number; bytes: Uint8Array[] }[] = [{ base: 0, bytes: [] }];
  const records: Model["records"] = [];
  const open = new Map<number, number[]>(); // producer -> indexes into records
  const firstOpen = new Map<number, number>();
  let offset = 0;
  for (const s of steps) {
    if (s.kind === "roll") {
      if (segments.at(-1)!.bytes.length > 0) segments.push({ base: offset, bytes: [] });
      continue;
    }
    const base = { baseOffset: offset, timestamp: offset };
    if (s.kind === "marker") {
      const key = new Uint8Array([0, 0, 0, s.commit ? 1 : 0]);
      segments.at(-1)!.bytes.push(
        encodeBatch([{ key, value: new Uint8Array(6) }], {
          ...base,
          producerId: s.producer,
          producerEpoch: 0,
          isTransactional: true,
          isControl: true,
        }),
      );
      for (const i of open.get(s.producer) ?? []) records[i]!.aborted = !s.commit;
      open.delete(s.producer);
      firstOpen.delete(s.producer);
      offset += 1;
      continue;
    }
    const values = Array.from({ length: s.count }, (_, i) => ({ value: `${offset + i}` }));
    const producer =
      s.kind === "plain" ? {} : { producerId: s.kind === "tx" ? s.producer : 10, producerEpoch: 0, baseSequence: 0 };
    const tx = s.kind === "tx";
    segments.at(-1)!.bytes.push(encodeBatch(values, { ...base, ...producer, isTransactional: tx }));
    for (let i = 0; i < s.count; i++) {
      if (tx) {
        if (!open.has(s.producer)) {
          open.set(s.producer, []);
          firstOpen.set(s.producer, offset);
        }
        open.get(s.producer)!.push(records.length);
      }
      records.push({ offset: offset + i, aborted: false, open: false });
    }
    offset += s.count;
  }
  for (const indexes of open.values()) for (const i of indexes) records[i]!.open = true;
  for (const { base, bytes } of segments) {
    const file = new Uint8Array(bytes.reduce((n, b) => n + b.length, 0));
    bytes.reduce((at, b) => (file.set(b, at), at + b.length), 0);
    await writeFile(sim, segPath(base, ".log"), 0, file, { create: true, sync: true });
  }
  await sim.syncDir(NAME);
  return { sim, model: { records, lastStable: Math.min(offset, ...firstOpen.values()), end: offset } };
}

function expected(model: Model, isolation: Isolation, from: number): number[] {
  return model.records
    .filter((r) => r.offset >= from)
    .filter((r) => isolation === "read_uncommitted" || (!r.aborted && r.offset < model.lastStable))
    .map((r) => r.offset);
}

describe("isolation against a model of Kafka's consumer", () => {
  it("random broker logs read as the model says, whole and from any offset, at both levels", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 25 }), fc.nat(), async (steps, pick) => {
        const { sim, model } = await build(steps);
        fc.pre(model.end > 0);
        const dir = await LogDir.open(sim);
        try {
          const log = await dir.log(NAME);
          const from = pick % (model.end + 1);
          for (const isolation of ["read_committed", "read_uncommitted"] as const) {
            for (const start of [0, from]) {
              const viaRecords: number[] = [];
              for await (const r of log.records({ from: start, isolation })) viaRecords.push(r.offset);
              expect(viaRecords, `${isolation} from ${start}`).toEqual(expected(model, isolation, start));
              const viaRead: number[] = [];
              for (let at = start; at < log.endOffset;) {
                const got = await log.read(at, { isolation, maxRecords: 1 + (at % 3) });
                if (got.length === 0) break;
                viaRead.push(...got.map((r) => r.offset));
                at = got.at(-1)!.offset + 1;
              }
              expect(viaRead, `read() ${isolation} from ${start}`).toEqual(expected(model, isolation, start));
            }
          }
        } finally {
          await dir.close();
        }
      }),
      { ...fastCheckParams(), numRuns: 80 },
    );
  });
});
