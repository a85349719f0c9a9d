/**
 * Property: index lookups agree with a linear scan. For random segments (batch sizes and counts,
 * non-monotonic timestamps including negative ones, indexIntervalBytes down to 0),
 * `read(offset)` starts with exactly the batch holding `offset`, and `offsetForTimestamp(ts)` is
 * the first offset whose record timestamp is >= ts, as a scan of the model finds: after appends,
 * after `truncateTo`, after a reopen with `loadClean()`, after `recover()`, and after `recover()` of a
 * log cut short or garbled from a random byte on.
 * Seeded from PAGELOG_SEED (test/support/seed.ts): a failure prints the command that replays it.
 * More runs: PAGELOG_SEGMENT_RUNS=<n> (default 250).
 */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { fastCheckParams } from "../support/seed.js";
import { size } from "../support/budget.js";
import type { Segment } from "../../src/segment/segment.js";
import { SimStorage } from "../../src/storage/sim-storage.js";
import {
  type BatchSpec,
  type ModelBatch,
  batchHolding,
  buildBatches,
  concat,
  expectBytes,
  firstOffsetAtOrAfter,
  logPath,
  openSegment,
  readFile,
  replaceFile,
  segmentWith,
  writeFile,
} from "../unit/segment/helpers.js";

const timestamp = fc.oneof(
  { arbitrary: fc.integer({ min: -50, max: 50 }), weight: 3 },
  { arbitrary: fc.integer({ min: -2_000_000_000_000, max: 2_000_000_000_000 }), weight: 1 },
  { arbitrary: fc.constantFrom(-1, 0, 1), weight: 1 },
);
const batchSpec: fc.Arbitrary<BatchSpec> = fc.record({
  timestamps: fc.array(timestamp, { minLength: 1, maxLength: 5 }),
  valueBytes: fc.integer({ min: 0, max: 300 }),
});
const scenario = fc.record({
  baseOffset: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 1_000_000_000 })),
  specs: fc.array(batchSpec, { minLength: 0, maxLength: 20 }),
  indexIntervalBytes: fc.oneof(fc.constantFrom(0, 1, 4096), fc.integer({ min: 0, max: 1500 })),
  /** Where to truncate, as a fraction of the offsets (and a little past both ends). */
  truncateAt: fc.double({ min: -0.1, max: 1.1, noNaN: true }),
  /** How many of the cut batches to append again afterwards. */
  reappend: fc.nat({ max: 5 }),
  /** Then the log is damaged from this fraction of its bytes on: cut there, or every byte flipped. */
  damageAt: fc.double({ min: 0, max: 1, noNaN: true }),
  damage: fc.constantFrom("cut" as const, "flip" as const),
  flipMask: fc.integer({ min: 1, max: 255 }),
});

type Scenario = typeof scenario extends fc.Arbitrary<infer T> ? T : never;

/** Checks every offset and every interesting timestamp against the model. */
async function agreesWithScan(segment: Segment, model: readonly ModelBatch[], phase: string): Promise<void> {
  const next = model.length === 0 ? segment.baseOffset : model.at(-1)!.lastOffset + 1;
  expect(segment.nextOffset, phase).toBe(next);
  expect(segment.size, phase).toBe(model.reduce((n, b) => n + b.size, 0));
  for (let offset = segment.baseOffset - 1; offset <= next; offset++) {
    const k = batchHolding(model, Math.max(offset, segment.baseOffset));
    const whole = await segment.read(offset, Number.MAX_SAFE_INTEGER);
    const one = await segment.read(offset, 1);
    if (k < 0) {
      expect(whole, `${phase}: read(${offset})`).toBeNull();
      expect(one).toBeNull();
      continue;
    }
    const holder = model[k]!;
    expectBytes(one?.bytes, holder.bytes, `${phase}: read(${offset}, 1)`);
    expect(one?.position).toBe(holder.position);
    expect(one?.firstOffset).toBe(holder.baseOffset);
    expect(one?.lastOffset).toBe(holder.lastOffset);
    expectBytes(whole?.bytes, concat(model.slice(k).map((b) => b.bytes)), `${phase}: read(${offset})`);
  }
  const all = model.flatMap((b) => b.timestamps);
  const targets = new Set([Number.MIN_SAFE_INTEGER, -2, -1, 0, 1, Number.MAX_SAFE_INTEGER]);
  for (const t of all) for (const d of [-1, 0, 1]) targets.add(t + d);
  for (const ts of targets) {
    expect(await segment.offsetForTimestamp(ts), `${phase}: offsetForTimestamp(${ts})`).toBe(
      firstOffsetAtOrAfter(model, ts),
    );
  }
}

/** One scenario: every phase checked against the model. */
async function checkScenario({
  baseOffset,
  specs,
  indexIntervalBytes,
  truncateAt,
  reappend,
  damageAt,
  damage,
  flipMask,
}: Scenario): Promise<void> {
  const options = { indexIntervalBytes };
  const storage = new SimStorage();
  const { segment, batches } = await segmentWith(specs, baseOffset, options, storage);
  await agreesWithScan(segment, batches, "after append");

  const next = segment.nextOffset;
  const target = baseOffset + Math.round(truncateAt * (next - baseOffset));
  const newNext = await segment.truncateTo(target);
  let model = target >= next ? batches : batches.filter((b) => b.lastOffset < target);
  expect(newNext).toBe(model.length === 0 ? baseOffset : model.at(-1)!.lastOffset + 1);
  await agreesWithScan(segment, model, `after truncateTo(${target})`);

  // Append some of what was cut again (same offsets, same bytes).
  const again = buildBatches(specs, baseOffset).slice(model.length, model.length + reappend);
  for (const b of again) await segment.append(b.bytes);
  model = [...model, ...again];
  await agreesWithScan(segment, model, "after re-append");
  await segment.close();

  const clean = await openSegment(storage, baseOffset, options);
  expect(await clean.loadClean()).toEqual({ indexesRebuilt: false });
  await agreesWithScan(clean, model, "after loadClean");
  await clean.close();

  const recovered = await openSegment(storage, baseOffset, options);
  expect((await recovered.recover()).truncatedBytes).toBe(0);
  await agreesWithScan(recovered, model, "after recover");
  await recovered.close();

  // Damage from byte p on (a torn tail, or garbage): recovery keeps the batches wholly before p.
  const size = model.reduce((n, b) => n + b.size, 0);
  const p = Math.floor(damageAt * size);
  const log = await readFile(storage, logPath(baseOffset));
  if (damage === "cut") await replaceFile(storage, logPath(baseOffset), log.subarray(0, p));
  else
    await writeFile(
      storage,
      logPath(baseOffset),
      p,
      log.subarray(p).map((b) => b ^ flipMask),
    );
  const kept = model.filter((b) => b.position + b.size <= p);
  const keptBytes = kept.reduce((n, b) => n + b.size, 0);
  const damaged = await openSegment(storage, baseOffset, options);
  const report = await damaged.recover();
  expect(report).toMatchObject({ validBytes: keptBytes, truncatedBytes: (damage === "cut" ? p : size) - keptBytes });
  await agreesWithScan(damaged, kept, `after recover from ${damage} at byte ${p}`);
  await damaged.close();
}

describe("Segment: index lookups agree with a linear scan", () => {
  test("property: read and offsetForTimestamp equal a scan after append, truncateTo, loadClean, recover and recovery from a damaged tail", async () => {
    await fc.assert(fc.asyncProperty(scenario, checkScenario), {
      ...fastCheckParams(),
      numRuns: size("segmentRuns"),
    });
  });
});
