/**
 * Property (guarantee 11 of docs/guarantees.md, with 1, 2, 4, 6 and 7 checked at every reopen):
 * the options may change between opens of the same log directory and no flushed record is lost.
 *
 * fast-check draws a sequence of steps on one SimStorage directory: appends of varying sizes
 * that fit the options of the moment, flushes, page write-backs, clock ticks (flushMs,
 * segmentMs), and reopens — after a clean close, after a power cut with random page fates
 * (between calls, or some storage operations into an append, a flush or a close), or with a
 * second power cut inside the reopen's own recovery — each with other `maxBatchBytes` (also
 * smaller than batches already on disk), `segmentBytes`, `segmentMs`, `indexIntervalBytes`,
 * `maxIndexBytes` (also smaller than index files already written), `flushMessages`, `flushMs`
 * and checkpoint interval.
 *
 * After every reopen: the records are exactly a prefix of what was appended (same offsets, keys,
 * values, headers, timestamps), at least everything the log had reported durable (its
 * recoveryPoint after each call: a resolved flush, a flush policy, a clean close), and all of
 * it after a clean close; `read(offset)` for every offset and `offsetForTimestamp` around every
 * timestamp agree with a linear scan; appends go on at the end offset.
 *
 * Replay a failure with the PAGELOG_SEED and PAGELOG_PATH it prints; PAGELOG_OPTIONS_RUNS=<n>
 * runs more.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fastCheckParams, testReplayCommand } from "../support/seed.js";
import { size } from "../support/budget.js";
import { ErrorCode, LogDir, PagelogError, SimStorage } from "../../src/index.js";
import type { Log, LogOptions, LogRecord } from "../../src/index.js";

const RUNS = size("optionsRuns");
const NAME = "options-0";

interface Options {
  readonly maxBatchBytes: number;
  readonly segmentBytes: number;
  readonly segmentMs: number;
  readonly indexIntervalBytes: number;
  readonly maxIndexBytes: number;
  readonly flushMessages: number;
  readonly flushMs: number;
  readonly checkpointIntervalMs: number;
}

type Step =
  | { readonly kind: "append"; readonly values: readonly number[]; readonly tsJitter: number }
  | { readonly kind: "flush" }
  | { readonly kind: "tick"; readonly ms: number }
  | { readonly kind: "writeback"; readonly pages: number }
  | { readonly kind: "close"; readonly options: Options }
  | { readonly kind: "crash"; readonly options: Options }
  | { readonly kind: "crashInRecovery"; readonly options: Options; readonly afterOps: number; readonly then: Options }
  /** The power cut `afterOps` storage operations into an append, a flush or a close. */
  | {
      readonly kind: "cutDuring";
      readonly op: "append" | "flush" | "close";
      readonly afterOps: number;
      readonly options: Options;
    };

const optionsArb: fc.Arbitrary<Options> = fc.record({
  maxBatchBytes: fc.constantFrom(120, 1000, 4096, 70_000, 1_048_588, 4 << 20),
  segmentBytes: fc.constantFrom(200, 700, 4096, 100_000, 1 << 30),
  segmentMs: fc.constantFrom(1, 100, 7 * 24 * 60 * 60 * 1000),
  indexIntervalBytes: fc.constantFrom(0, 1, 100, 4096),
  maxIndexBytes: fc.constantFrom(12, 24, 100, 10 << 20),
  flushMessages: fc.constantFrom(-1, -1, 1, 3),
  flushMs: fc.constantFrom(-1, -1, 0, 50),
  checkpointIntervalMs: fc.constantFrom(-1, 0, 100, 60_000),
});

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 10,
    arbitrary: fc.record({
      kind: fc.constant("append" as const),
      values: fc.array(fc.constantFrom(0, 5, 40, 300, 2000, 9000, 60_000), { minLength: 1, maxLength: 4 }),
      tsJitter: fc.integer({ min: -3, max: 5 }),
    }),
  },
  { weight: 3, arbitrary: fc.constant({ kind: "flush" as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("tick" as const), ms: fc.constantFrom(1, 60, 1000) }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant("writeback" as const), pages: fc.integer({ min: 1, max: 8 }) }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("close" as const), options: optionsArb }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("crash" as const), options: optionsArb }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("crashInRecovery" as const),
      options: optionsArb,
      afterOps: fc.integer({ min: 0, max: 60 }),
      then: optionsArb,
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("cutDuring" as const),
      op: fc.constantFrom("append" as const, "flush" as const, "close" as const),
      afterOps: fc.integer({ min: 0, max: 25 }),
      options: optionsArb,
    }),
  },
);

interface Model {
  key: string;
  value: string;
  timestamp: number;
  headers: Array<{ key: string; value: string | null }>;
}

const dec = new TextDecoder();
const str = (b: Uint8Array | null) => (b === null ? null : dec.decode(b));
const asModel = (r: LogRecord): Model => ({
  key: str(r.key)!,
  value: str(r.value)!,
  timestamp: r.timestamp,
  headers: r.headers.map((h) => ({ key: h.key, value: str(h.value) })),
});
const same = (a: Model, b: Model) => JSON.stringify(a) === JSON.stringify(b);

/** A small record overhead bound: what a record adds to a batch besides its value (key, headers, varints). */
const RECORD_OVERHEAD = 60;
const BATCH_OVERHEAD = 61;

async function runSteps(
  seed: number,
  initial: Options,
  steps: readonly Step[],
): Promise<{ reopens: number; crashes: number; records: number }> {
  let now = 1_000_000;
  const clock = { now: () => now };
  let sim = new SimStorage({ seed, writeback: 0 });
  let options = initial;
  let dir!: LogDir;
  let log!: Log;
  const model: Model[] = [];
  /** Records the log has reported durable (its recoveryPoint after the last resolved call). */
  let durable = 0;
  let id = 0;
  let reopens = 0;
  let crashes = 0;
  const logOptions = (o: Options): LogOptions => ({
    maxBatchBytes: o.maxBatchBytes,
    segmentBytes: o.segmentBytes,
    segmentMs: o.segmentMs,
    indexIntervalBytes: o.indexIntervalBytes,
    maxIndexBytes: o.maxIndexBytes,
    flushMessages: o.flushMessages,
    flushMs: o.flushMs,
    clock,
  });
  const open = async (o: Options) => {
    dir = await LogDir.open(sim, { checkpointIntervalMs: o.checkpointIntervalMs, log: { clock } });
    log = await dir.log(NAME, logOptions(o));
    options = o;
  };
  const history: string[] = [];
  const fail = (why: string): never => {
    throw new Error(
      `${why}\n  options now: ${JSON.stringify(options)}\n  history:\n    ${history.slice(-25).join("\n    ")}`,
    );
  };

  /** After a reopen: prefix, durability, index truth; `exact`: nothing may be missing (clean close). */
  const check = async (how: string, exact: boolean, inFlight: readonly Model[] = []) => {
    reopens++;
    const candidates = [...model, ...inFlight];
    const got: LogRecord[] = [];
    for await (const r of log.records()) got.push(r);
    history.push(
      `${how} -> ${got.length} records (model ${model.length}, durable ${durable}), recovery ${JSON.stringify({ ...log.recovery, durationMs: undefined })}`,
    );
    if (log.startOffset !== 0) fail(`${how}: start offset ${log.startOffset}, expected 0`);
    if (log.endOffset !== got.length)
      fail(`${how}: endOffset ${log.endOffset}, but records() gave ${got.length} records`);
    for (const [i, r] of got.entries()) {
      if (r.offset !== i) fail(`${how}: record #${i} has offset ${r.offset}`);
      if (i >= candidates.length || !same(asModel(r), candidates[i]!))
        fail(
          `${how}: record at ${i} is ${JSON.stringify(asModel(r)).slice(0, 200)}, appended was ${JSON.stringify(candidates[i])?.slice(0, 200)}`,
        );
    }
    if (got.length < durable)
      fail(
        `${how}: ${got.length} records, but ${durable} were flushed (guarantee 2/11: a flushed record lost after the options changed)`,
      );
    if (exact && got.length !== model.length)
      fail(`${how}: ${got.length} records after a clean close, ${model.length} appended (guarantee 7)`);
    // Guarantee 7: after a clean close nothing is cut or deleted (indexes may be rebuilt for a smaller maxIndexBytes).
    if (exact && (log.recovery.bytesTruncated !== 0 || log.recovery.segmentsDeleted !== 0))
      fail(
        `${how}: a reopen after a clean close cut ${log.recovery.bytesTruncated} bytes and deleted ${log.recovery.segmentsDeleted} segments`,
      );
    // Index truth: every offset, and timestamps around every record's.
    for (const r of got) {
      const [one] = await log.read(r.offset, { maxRecords: 1 });
      if (one?.offset !== r.offset || !same(asModel(one), asModel(r)))
        fail(`${how}: read(${r.offset}) gave ${one?.offset}`);
    }
    const stamps = new Set<number>();
    for (const r of got) for (const d of [-1, 0, 1]) stamps.add(r.timestamp + d);
    for (const t of stamps) {
      const want = got.find((r) => r.timestamp >= t)?.offset ?? null;
      const answer = await log.offsetForTimestamp(t);
      if (answer !== want) fail(`${how}: offsetForTimestamp(${t}) gave ${answer}, a linear scan gives ${want}`);
    }
    model.length = 0;
    model.push(...candidates.slice(0, got.length));
    durable = got.length; // what a reopen read back, it made durable
  };

  const crashAndReopen = async (
    how: string,
    o: Options,
    cutInRecovery?: { afterOps: number; then: Options },
    inFlight: readonly Model[] = [],
  ) => {
    crashes++;
    sim = sim.crash();
    if (cutInRecovery === undefined) {
      await open(o);
      return check(how, false, inFlight);
    }
    sim.scheduleCrash({ afterOps: cutInRecovery.afterOps });
    try {
      await open(o);
      await check(`${how} (the cut at +${cutInRecovery.afterOps} ops came after the reopen)`, false);
      sim.scheduleCrash({ afterOps: 1e12 });
      return;
    } catch (err) {
      if (!(err instanceof PagelogError && err.code === ErrorCode.POWER_CUT)) throw err;
    }
    crashes++;
    sim = sim.crash();
    await open(cutInRecovery.then);
    return check(
      `${how}, cut ${cutInRecovery.afterOps} ops into recovery, reopened with ${JSON.stringify(cutInRecovery.then)}`,
      false,
    );
  };

  await open(initial);
  history.push(`open ${JSON.stringify(initial)}`);
  for (const step of steps) {
    switch (step.kind) {
      case "append": {
        // Only appends that fit today's options: a record's value shrinks to fit maxBatchBytes.
        const room = Math.max(
          0,
          Math.floor((options.maxBatchBytes - BATCH_OVERHEAD) / step.values.length) - RECORD_OVERHEAD,
        );
        const records = step.values.map((size) => {
          const n = id++;
          return {
            key: `k${n}`,
            value: `v${n}:`.padEnd(Math.min(size, room), "x"),
            timestamp: now + step.tsJitter * 10 + n,
            headers:
              n % 3 === 0
                ? [
                    { key: "h", value: `h${n}` },
                    { key: "nul", value: null },
                  ]
                : [],
          };
        });
        const base = log.endOffset;
        if (base !== model.length) fail(`before an append: endOffset ${base}, model ${model.length}`);
        // If the estimate was generous, smaller tries: the same with empty values, then one record.
        const tries = [
          records,
          records.map((r) => ({ ...r, value: "" })),
          [{ ...records[0]!, value: "", headers: [] }],
        ];
        let appended: typeof records | undefined;
        for (const attempt of tries) {
          try {
            const { baseOffset, lastOffset } = await log.append(attempt);
            if (baseOffset !== base || lastOffset !== base + attempt.length - 1)
              fail(`append went to ${baseOffset}..${lastOffset}, the end was ${base}`);
            appended = attempt;
            break;
          } catch (err) {
            if (!(err instanceof PagelogError && err.code === ErrorCode.RECORD_TOO_LARGE)) throw err;
            if (log.endOffset !== base)
              fail(`an append refused with RECORD_TOO_LARGE moved the end from ${base} to ${log.endOffset}`);
          }
        }
        if (appended === undefined) {
          history.push(`append: nothing fits maxBatchBytes ${options.maxBatchBytes}`);
          break;
        }
        for (const r of appended)
          model.push({ key: r.key, value: r.value, timestamp: r.timestamp, headers: r.headers });
        history.push(
          `append ${appended.length} (${appended.map((r) => r.value.length).join(",")} B) -> end ${log.endOffset}, recoveryPoint ${log.recoveryPoint}`,
        );
        break;
      }
      case "flush":
        await log.flush();
        if (log.recoveryPoint !== log.endOffset)
          fail(`flush() resolved with recoveryPoint ${log.recoveryPoint} < endOffset ${log.endOffset}`);
        history.push(`flush -> ${log.recoveryPoint}`);
        break;
      case "tick":
        now += step.ms;
        history.push(`clock +${step.ms}`);
        break;
      case "writeback":
        sim.writeback({ pages: step.pages });
        history.push(`writeback ${step.pages} pages`);
        break;
      case "close":
        durable = Math.max(durable, log.recoveryPoint);
        await dir.close();
        durable = model.length;
        history.push(`close, reopen with ${JSON.stringify(step.options)}`);
        await open(step.options);
        await check("clean close, reopen", true);
        break;
      case "crash":
        durable = Math.max(durable, log.recoveryPoint);
        history.push(`power cut (recoveryPoint ${log.recoveryPoint}), reopen with ${JSON.stringify(step.options)}`);
        await crashAndReopen("power cut, reopen", step.options);
        break;
      case "crashInRecovery":
        durable = Math.max(durable, log.recoveryPoint);
        history.push(
          `power cut (recoveryPoint ${log.recoveryPoint}), reopen with ${JSON.stringify(step.options)}, cut after ${step.afterOps} ops`,
        );
        await crashAndReopen("power cut, reopen", step.options, { afterOps: step.afterOps, then: step.then });
        break;
      case "cutDuring": {
        durable = Math.max(durable, log.recoveryPoint);
        history.push(
          `power cut ${step.afterOps} ops into ${step.op} (recoveryPoint ${log.recoveryPoint}), reopen with ${JSON.stringify(step.options)}`,
        );
        sim.scheduleCrash({ afterOps: step.afterOps });
        let inFlight: Model[] = [];
        try {
          if (step.op === "append") {
            const n = id++;
            const record = { key: `k${n}`, value: `v${n}`, timestamp: now + n, headers: [] };
            inFlight = [{ ...record }];
            await log.append([record]);
            model.push(...inFlight);
            inFlight = [];
          } else if (step.op === "flush") {
            await log.flush();
          } else {
            await dir.close();
            durable = model.length;
          }
          durable = Math.max(durable, step.op === "close" ? model.length : log.recoveryPoint);
        } catch (err) {
          // The cut may meet a background roll flush first: the log then fails (PAGELOG_FAILED)
          // with the power cut as its cause, and the step reports that.
          const cutInBackground =
            err instanceof PagelogError &&
            err.code === ErrorCode.FAILED &&
            err.cause instanceof PagelogError &&
            err.cause.code === ErrorCode.POWER_CUT;
          if (
            !cutInBackground &&
            !(
              err instanceof PagelogError &&
              (err.code === ErrorCode.POWER_CUT || err.code === ErrorCode.RECORD_TOO_LARGE)
            )
          )
            throw err;
        }
        await crashAndReopen(`power cut during ${step.op}, reopen`, step.options, undefined, inFlight);
        break;
      }
    }
    if (log.status !== "closed") durable = Math.max(durable, log.recoveryPoint);
  }
  // Progress and a last clean close with the defaults: everything there.
  await dir.close();
  durable = model.length;
  await open({
    maxBatchBytes: 1_048_588,
    segmentBytes: 1 << 30,
    segmentMs: 7 * 24 * 60 * 60 * 1000,
    indexIntervalBytes: 4096,
    maxIndexBytes: 10 << 20,
    flushMessages: -1,
    flushMs: -1,
    checkpointIntervalMs: 60_000,
  });
  await check("final clean close, reopen with the defaults", true);
  await dir.close();
  return { reopens, crashes, records: model.length };
}

describe("property: options may change between opens (guarantee 11)", () => {
  it("the issue's case: a 2 MiB record under maxBatchBytes 4 MiB, flushed, power cut, reopened with the defaults", async () => {
    const big: Options = {
      maxBatchBytes: 4 << 20,
      segmentBytes: 1 << 30,
      segmentMs: 7 * 24 * 60 * 60 * 1000,
      indexIntervalBytes: 4096,
      maxIndexBytes: 10 << 20,
      flushMessages: -1,
      flushMs: -1,
      checkpointIntervalMs: -1,
    };
    const defaults: Options = { ...big, maxBatchBytes: 1_048_588 };
    await runSteps(1, big, [
      { kind: "append", values: [10], tsJitter: 0 },
      { kind: "append", values: [2 << 20], tsJitter: 0 },
      { kind: "append", values: [10], tsJitter: 0 },
      { kind: "flush" },
      { kind: "crash", options: defaults },
      { kind: "close", options: { ...defaults, maxBatchBytes: 120 } },
    ]);
  });

  it(`holds for ${RUNS} random sequences of opens, appends, flushes, clean closes and power cuts`, async () => {
    const params = fastCheckParams();
    let reopens = 0;
    let crashes = 0;
    let records = 0;
    const result = await fc.check(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 2 ** 31 - 1 }),
        optionsArb,
        fc.array(stepArb, { minLength: 1, maxLength: 40 }),
        async (simSeed, initial, steps) => {
          const outcome = await runSteps(simSeed, initial, steps);
          reopens += outcome.reopens;
          crashes += outcome.crashes;
          records += outcome.records;
        },
      ),
      { ...params, numRuns: RUNS },
    );
    if (result.failed) {
      const message = String((result.errorInstance as Error)?.stack ?? result.errorInstance);
      throw new Error(
        `options-change property failed (fast-check seed ${result.seed}, path ${result.counterexamplePath})\n${message}\n\n` +
          `Counterexample: ${fc.stringify(result.counterexample).slice(0, 3000)}\n` +
          `Replay: ${testReplayCommand(`PAGELOG_PATH=${result.counterexamplePath}`)}`,
      );
    }
    console.log(
      `options change: ${RUNS} sequences, ${reopens} reopens with other options, ${crashes} power cuts, ${records} records at the end`,
    );
    expect(reopens).toBeGreaterThan(RUNS);
  });
});
