/**
 * The read-only variant of a hostile-files case (guarantee 9 for a second process): the same
 * damaged directory opened with `{ readOnly: true }` on a storage that refuses every mutating
 * call, then log(), records(), a read of every record served, a refresh, close. Only
 * PagelogErrors with a documented code; every record served is the one appended at its offset,
 * in order; records() that ends without an error ends at the end the log reports; no read asks
 * for more than a file holds; no hang (the operation budget); and no byte, name or call that
 * writes: the files are exactly as before.
 */
import { ErrorCode, LogDir, PagelogError } from "../../../src/node.js";
import { RecordingStorage } from "../../support/recording-storage.js";
import type { Case, Pristine, Variant } from "./cases.js";
import { OP_BUDGET, prepare } from "./run-case.js";
import {
  guardReads,
  hashTree,
  LOG_OPTIONS,
  type OverRead,
  PARTITION,
  type Plain,
  plain,
  readTree,
  simOf,
} from "./tree.js";

const DOCUMENTED = new Set<string>(Object.values(ErrorCode));

export async function runReadOnlyCase(
  pristine: Pristine,
  originals: readonly Plain[],
  c: Case,
  variant: Variant,
): Promise<{ outcome: string; violations: string[] }> {
  const tree = prepare(pristine, c, variant);
  const sim = await simOf(tree);
  sim.scheduleCrash({ afterOps: OP_BUDGET });
  const overReads: OverRead[] = [];
  const mount = new RecordingStorage(guardReads(sim, overReads));
  const violations: string[] = [];
  let outcome = "read-only: every record";
  const judge = (err: unknown, where: string): void => {
    if (!(err instanceof PagelogError)) {
      violations.push(`read-only ${where} threw ${(err as Error)?.name}: ${(err as Error)?.message}`);
    } else if (err.code === ErrorCode.POWER_CUT) {
      violations.push(`read-only ${where}: still running after ${OP_BUDGET} storage operations (a hang)`);
    } else if (!DOCUMENTED.has(err.code)) {
      violations.push(`read-only ${where} threw an undocumented code ${String(err.code)}`);
    }
    outcome = `read-only ${where}: ${(err as PagelogError)?.code ?? "not a PagelogError"}`;
  };
  let dir: LogDir | undefined;
  try {
    dir = await LogDir.open(mount, { readOnly: true });
    const log = await dir.log(PARTITION, LOG_OPTIONS);
    const { startOffset, endOffset } = log;
    let k = 0;
    try {
      for await (const r of log.records()) {
        const got = plain(r);
        if (r.offset !== startOffset + k || JSON.stringify(got) !== JSON.stringify(originals[r.offset])) {
          violations.push(`read-only records() #${k} is ${JSON.stringify(got)}, not what was appended there`);
          break;
        }
        k++;
      }
      if (violations.length === 0 && startOffset + k !== endOffset)
        violations.push(`read-only records() ended at ${startOffset + k} without an error, the end is ${endOffset}`);
      if (k < originals.length) outcome = `read-only: ${k} records from ${startOffset}`;
      for (let offset = startOffset; offset < startOffset + k && violations.length === 0; offset += 7) {
        const [first] = await log.read(offset, { maxRecords: 1 });
        if (first === undefined || JSON.stringify(plain(first)) !== JSON.stringify(originals[offset]))
          violations.push(`read-only read(${offset}) gave ${JSON.stringify(first && plain(first))}`);
      }
      if ((await log.refresh()) !== endOffset) violations.push("read-only refresh() moved the end of unchanged files");
    } catch (err) {
      judge(err, "read");
    }
  } catch (err) {
    judge(err, dir === undefined ? "LogDir.open" : "log()");
  } finally {
    await dir?.close().catch((err: unknown) => judge(err, "close()"));
  }
  if (mount.writes.length > 0) violations.push(`read-only made a write call: ${JSON.stringify(mount.writes[0])}`);
  if (hashTree(await readTree(sim)) !== hashTree(tree)) violations.push("read-only changed the files");
  for (const r of overReads.slice(0, 3))
    violations.push(`read-only read of ${r.length} bytes at ${r.position} of ${r.path}, which holds ${r.size}`);
  return { outcome, violations };
}
