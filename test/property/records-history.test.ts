/**
 * Property: a `records()` iterator hands out one history, or a PagelogError saying why not.
 *
 * fast-check draws a log (segment size, retention by bytes) and a sequence of steps: appends of
 * unique values (small and large, so that a read holds several batches and rolls run retention),
 * truncations, deleteRecordsBefore, applyRetention, iterators opened (from the start, from an
 * offset in or out of range, with or without `to`) and stepped, and a truncation or deletion
 * raced against an iterator's step (called together, neither awaited first). At the end the
 * log is closed and every iterator stepped once more.
 *
 * A model of the log (its start, and the value at every offset) says what each step must give,
 * exactly: the record the log holds at the iterator's next offset at that moment (so offsets one
 * after another from `from`), the end, or an error with the code the model predicts:
 * `PAGELOG_TRUNCATED` once a truncation cut below the offset it had got to,
 * `PAGELOG_OFFSET_OUT_OF_RANGE` once the start passed it (or `from` was outside [start, end]),
 * `PAGELOG_CLOSED` after the close. A raced step may come out as if it ran just before or just
 * after the other call. Never an error the model does not predict, never records of two
 * histories, never a quiet early end.
 *
 * Replay a failure with the PAGELOG_SEED and PAGELOG_PATH it prints; PAGELOG_RECORDS_RUNS=<n>
 * runs more.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fastCheckParams, testReplayCommand } from "../support/seed.js";
import { size } from "../support/budget.js";
import { ErrorCode, LogDir, PagelogError, SimStorage } from "../../src/index.js";
import type { Log, LogRecord } from "../../src/index.js";

const RUNS = size("recordsRuns");
const NAME = "history-0";
const SLOTS = 3;

type Cut = { readonly kind: "truncate" | "deleteBefore"; readonly at: number };
type Step =
  | { readonly kind: "append"; readonly sizes: readonly number[] }
  | Cut
  | { readonly kind: "retention" }
  | { readonly kind: "open"; readonly slot: number; readonly from: Where | null; readonly to: number | null }
  | { readonly kind: "step"; readonly slot: number; readonly count: number }
  | { readonly kind: "race"; readonly slot: number; readonly cut: Cut };

/** Where in [start, end] (0..1), or just outside it. */
type Where = number | "below" | "past";
const where: fc.Arbitrary<Where> = fc.oneof(
  { weight: 8, arbitrary: fc.double({ min: 0, max: 1, noNaN: true }) },
  { weight: 1, arbitrary: fc.constantFrom("below" as const, "past" as const) },
);
const cutArb: fc.Arbitrary<Cut> = fc.record({
  kind: fc.constantFrom("truncate" as const, "deleteBefore" as const),
  at: fc.double({ min: 0, max: 1, noNaN: true }),
});
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant("append" as const),
      sizes: fc.array(fc.constantFrom(0, 10, 60, 400), { minLength: 1, maxLength: 5 }),
    }),
  },
  { weight: 2, arbitrary: cutArb },
  { weight: 1, arbitrary: fc.constant({ kind: "retention" as const }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("open" as const),
      slot: fc.integer({ min: 0, max: SLOTS - 1 }),
      from: fc.option(where),
      to: fc.oneof(
        { weight: 3, arbitrary: fc.constant(null) },
        { weight: 1, arbitrary: fc.integer({ min: 0, max: 60 }) },
      ),
    }),
  },
  {
    weight: 12,
    arbitrary: fc.record({
      kind: fc.constant("step" as const),
      slot: fc.integer({ min: 0, max: SLOTS - 1 }),
      count: fc.integer({ min: 1, max: 8 }),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant("race" as const),
      slot: fc.integer({ min: 0, max: SLOTS - 1 }),
      cut: cutArb,
    }),
  },
);

interface LogModel {
  start: number;
  /** The value at every offset below the end (those below `start` are deleted). */
  values: string[];
  closed: boolean;
}

interface IterModel {
  readonly from: number | undefined;
  readonly to: number | undefined;
  started: boolean;
  next: number;
  /** A truncation cut below `next` since it started. */
  doomed: boolean;
  finished: boolean;
}

type Outcome =
  | { readonly kind: "yield"; readonly offset: number; readonly value: string }
  | { readonly kind: "done" }
  | { readonly kind: "error"; readonly code: string };

/** What the iterator's next step must give on a log in state `log`, and its model after it. */
function expectStep(m: IterModel, log: LogModel): { outcome: Outcome; after: IterModel } {
  const after = { ...m };
  const end = log.values.length;
  const finish = (outcome: Outcome) => {
    if (outcome.kind !== "yield") after.finished = true;
    return { outcome, after };
  };
  if (m.finished) return finish({ kind: "done" });
  if (!m.started) {
    if (log.closed) return finish({ kind: "error", code: ErrorCode.CLOSED });
    const from = m.from ?? log.start;
    if (from < log.start || from > end) return finish({ kind: "error", code: ErrorCode.OFFSET_OUT_OF_RANGE });
    after.started = true;
    after.next = from;
  }
  if (after.to !== undefined && after.next >= after.to) return finish({ kind: "done" });
  if (log.closed) return finish({ kind: "error", code: ErrorCode.CLOSED });
  if (after.doomed) return finish({ kind: "error", code: ErrorCode.TRUNCATED });
  if (after.next < log.start) return finish({ kind: "error", code: ErrorCode.OFFSET_OUT_OF_RANGE });
  if (after.next >= end) return finish({ kind: "done" });
  const offset = after.next++;
  return finish({ kind: "yield", offset, value: log.values[offset]! });
}

/** The offset a cut's 0..1 position picks in [start, end]. */
function cutOffset(cut: Cut, log: LogModel): number {
  return log.start + Math.floor(cut.at * (log.values.length - log.start + 0.999));
}

/** The model after `cut` (the offset from `cutOffset`, taken before it ran). */
function applyCut(cut: Cut, offset: number, log: LogModel, iters: readonly (IterModel | undefined)[]): void {
  if (cut.kind === "truncate") {
    if (offset >= log.values.length) return; // a no-op: nothing is cut
    log.values.length = offset;
    for (const m of iters) if (m !== undefined && m.started && !m.finished && offset < m.next) m.doomed = true;
  } else {
    log.start = Math.max(log.start, offset);
  }
}

async function observe(it: AsyncGenerator<LogRecord, void, undefined>): Promise<Outcome> {
  try {
    const step = await it.next();
    if (step.done === true) return { kind: "done" };
    return { kind: "yield", offset: step.value.offset, value: new TextDecoder().decode(step.value.value!) };
  } catch (err) {
    if (!(err instanceof PagelogError)) throw err;
    return { kind: "error", code: err.code };
  }
}

function runCut(log: Log, cut: Cut, offset: number): Promise<void> {
  return cut.kind === "truncate" ? log.truncateTo(offset) : log.deleteRecordsBefore(offset);
}

async function run(
  segmentBytes: number,
  retentionBytes: number,
  steps: readonly Step[],
): Promise<{ yielded: number; errors: number }> {
  const dir = await LogDir.open(new SimStorage({ seed: 7 }));
  const log = await dir.log(NAME, { segmentBytes, retentionBytes });
  const model: LogModel = { start: 0, values: [], closed: false };
  const iters: (IterModel | undefined)[] = new Array(SLOTS).fill(undefined);
  const gens: (AsyncGenerator<LogRecord, void, undefined> | undefined)[] = new Array(SLOTS).fill(undefined);
  let unique = 0;
  let yielded = 0;
  let errors = 0;
  const check = (label: string, got: Outcome, want: Outcome) => {
    expect(got, label).toEqual(want);
    if (got.kind === "yield") yielded++;
    if (got.kind === "error") errors++;
  };
  const syncStart = () => {
    // Retention (applyRetention, or at a roll) moves the start to a segment's base: take it from the log.
    expect(log.startOffset).toBeGreaterThanOrEqual(model.start);
    model.start = log.startOffset;
    expect(log.endOffset).toBe(model.values.length);
  };
  for (const [i, step] of steps.entries()) {
    const label = `step ${i} ${JSON.stringify(step)}`;
    switch (step.kind) {
      case "append": {
        const values = step.sizes.map((size) => `u${unique++}`.padEnd(size, "."));
        await log.append(values.map((value) => ({ value })));
        model.values.push(...values);
        syncStart();
        break;
      }
      case "truncate":
      case "deleteBefore": {
        const offset = cutOffset(step, model);
        await runCut(log, step, offset);
        applyCut(step, offset, model, iters);
        syncStart();
        break;
      }
      case "retention":
        await log.applyRetention();
        syncStart();
        break;
      case "open": {
        const end = model.values.length;
        const from =
          step.from === null
            ? undefined
            : step.from === "below"
              ? Math.max(0, model.start - 1)
              : step.from === "past"
                ? end + 1
                : Math.round(model.start + step.from * (end - model.start));
        const to = step.to ?? undefined;
        gens[step.slot] = log.records({ ...(from === undefined ? {} : { from }), ...(to === undefined ? {} : { to }) });
        iters[step.slot] = { from, to, started: false, next: -1, doomed: false, finished: false };
        break;
      }
      case "step": {
        const m = iters[step.slot];
        if (m === undefined) break;
        for (let k = 0; k < step.count; k++) {
          const { outcome, after } = expectStep(iters[step.slot]!, model);
          check(`${label} #${k}`, await observe(gens[step.slot]!), outcome);
          iters[step.slot] = after;
        }
        break;
      }
      case "race": {
        const m = iters[step.slot];
        if (m === undefined) break;
        const offset = cutOffset(step.cut, model);
        // Order A: the step, then the cut.
        const a = expectStep(m, model);
        const logA: LogModel = { ...model, values: [...model.values] };
        const itersA = iters.map((x, j) => (j === step.slot ? { ...a.after } : x && { ...x }));
        applyCut(step.cut, offset, logA, itersA);
        // Order B: the cut, then the step.
        const logB: LogModel = { ...model, values: [...model.values] };
        const itersB = iters.map((x) => x && { ...x });
        applyCut(step.cut, offset, logB, itersB);
        const b = expectStep(itersB[step.slot]!, logB);
        itersB[step.slot] = b.after;
        const [got] = await Promise.all([observe(gens[step.slot]!), runCut(log, step.cut, offset)]);
        const matchesA = JSON.stringify(got) === JSON.stringify(a.outcome);
        check(label, got, matchesA ? a.outcome : b.outcome);
        const [logNext, itersNext] = matchesA ? [logA, itersA] : [logB, itersB];
        model.start = logNext.start;
        model.values = logNext.values;
        for (let j = 0; j < SLOTS; j++) iters[j] = itersNext[j];
        syncStart();
        break;
      }
    }
  }
  // The log holds the model's history, and one more step of every iterator after a close says so.
  const all: string[] = [];
  for await (const r of log.records()) all.push(new TextDecoder().decode(r.value!));
  expect(all).toEqual(model.values.slice(model.start));
  await dir.close();
  model.closed = true;
  for (let j = 0; j < SLOTS; j++) {
    if (iters[j] === undefined) continue;
    check(`after close, slot ${j}`, await observe(gens[j]!), expectStep(iters[j]!, model).outcome);
  }
  return { yielded, errors };
}

describe("records() under truncation, retention and close (property)", () => {
  it("a hand-picked sequence: the issue's splice, a race, retention under an iterator", async () => {
    const out = await run(300, 600, [
      { kind: "append", sizes: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0] },
      { kind: "open", slot: 0, from: 0, to: null },
      { kind: "step", slot: 0, count: 6 },
      { kind: "truncate", at: 0.5 },
      { kind: "append", sizes: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0] },
      { kind: "step", slot: 0, count: 3 },
      { kind: "open", slot: 1, from: null, to: 12 },
      { kind: "step", slot: 1, count: 2 },
      { kind: "race", slot: 1, cut: { kind: "truncate", at: 0.9 } },
      { kind: "append", sizes: [400, 400, 400] },
      { kind: "retention" },
      { kind: "step", slot: 1, count: 4 },
    ]);
    expect(out.errors).toBeGreaterThanOrEqual(2);
  });

  it(`holds for ${RUNS} random interleavings`, async () => {
    const params = fastCheckParams();
    let yielded = 0;
    let errors = 0;
    const result = await fc.check(
      fc.asyncProperty(
        fc.constantFrom(200, 600, 1 << 20),
        fc.constantFrom(-1, -1, 800, 3000),
        fc.array(stepArb, { minLength: 1, maxLength: 60, size: "max" }),
        async (segmentBytes, retentionBytes, steps) => {
          const out = await run(segmentBytes, retentionBytes, steps);
          yielded += out.yielded;
          errors += out.errors;
        },
      ),
      { ...params, numRuns: RUNS },
    );
    if (result.failed) {
      const message = String((result.errorInstance as Error)?.stack ?? result.errorInstance);
      throw new Error(
        `records-history property failed (fast-check seed ${result.seed}, path ${result.counterexamplePath})\n${message}\n\n` +
          `Counterexample: ${fc.stringify(result.counterexample).slice(0, 3000)}\n` +
          `Replay: ${testReplayCommand(`PAGELOG_PATH=${result.counterexamplePath}`)}`,
      );
    }
    console.log(`records history: ${RUNS} sequences, ${yielded} records yielded, ${errors} errors predicted and seen`);
    expect(yielded).toBeGreaterThan(RUNS);
    expect(errors).toBeGreaterThan(0);
  });
});
