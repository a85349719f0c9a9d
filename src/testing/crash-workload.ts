/**
 * Random crash schedules for the harness: workloads that force segment rolls, flush policies,
 * truncations, start-offset moves, clean reopens, clock jumps and OS write-back, with the power
 * cut at a random storage operation and again, a few levels deep, inside recovery.
 */
import fc from "fast-check";
import type { Command, Schedule } from "./crash-harness.js";

const record = fc.record({
  // Few distinct sizes: batches of equal size make a stale batch line up exactly after a new
  // one, which is how a recovery truncation that was not made durable resurrects records.
  valueBytes: fc.oneof({ arbitrary: fc.constantFrom(0, 8, 40), weight: 4 }, { arbitrary: fc.integer({ min: 0, max: 700 }), weight: 1 }),
  keyed: fc.boolean(),
  headers: fc.integer({ min: 0, max: 3 }),
  // null: the log stamps it; otherwise any offset from the clock, including earlier (non-monotonic).
  tsDelta: fc.option(fc.integer({ min: -5000, max: 5000 }), { nil: null }),
});

export const commandArbitrary: fc.Arbitrary<Command> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant("append" as const), records: fc.array(record, { minLength: 1, maxLength: 4 }) }), weight: 10 },
  { arbitrary: fc.record({ kind: fc.constant("appendGroup" as const), calls: fc.array(fc.array(record, { minLength: 1, maxLength: 3 }), { minLength: 2, maxLength: 6 }) }), weight: 3 },
  { arbitrary: fc.constant({ kind: "flush" as const }), weight: 3 },
  { arbitrary: fc.record({ kind: fc.constant("truncate" as const), back: fc.integer({ min: 0, max: 6 }) }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant("deleteBefore" as const), forward: fc.integer({ min: 0, max: 6 }) }), weight: 1 },
  { arbitrary: fc.constant({ kind: "checkpoint" as const }), weight: 1 },
  { arbitrary: fc.constant({ kind: "reopen" as const }), weight: 1 },
  { arbitrary: fc.constant({ kind: "crash" as const }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant("clock" as const), ms: fc.integer({ min: 1, max: 400 }) }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant("writeback" as const), pages: fc.integer({ min: 1, max: 6 }) }), weight: 2 },
);

export const scheduleArbitrary: fc.Arbitrary<Schedule> = fc.record({
  seed: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
  commands: fc.array(commandArbitrary, { minLength: 1, maxLength: 30, size: "+1" }),
  options: fc.record({
    segmentBytes: fc.constantFrom(200, 400, 1000, 4000),
    indexIntervalBytes: fc.constantFrom(0, 64, 300, 4096),
    maxIndexBytes: fc.constantFrom(48, 10 * 1024 * 1024),
    flushMessages: fc.constantFrom(-1, -1, 1, 3),
    flushMs: fc.constantFrom(-1, -1, 300),
    segmentMs: fc.constantFrom(7 * 24 * 3600 * 1000, 500),
  }),
  checkpointIntervalMs: fc.constantFrom(-1, 0, 500),
  pageSize: fc.constantFrom(64, 256, 4096),
  sectorSize: fc.constant(0), // filled in below: a divisor of pageSize
  writeback: fc.constantFrom(0, 0.05, 0.3),
  cutAt: fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
  nestedCuts: fc.array(fc.integer({ min: 0, max: 60 }), { maxLength: 3 }),
}).chain((s) => fc.constantFrom(...[16, 64, 512].filter((x) => x <= s.pageSize)).map((sectorSize) => ({ ...s, sectorSize })));
