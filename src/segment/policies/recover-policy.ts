/**
 * Chapter 4's `recover` in the real recovery path. pagelog walks the segment first (its own
 * answer, `ours`: where the first bad byte is); then the reader's function gets the whole `.log`
 * and the course's helpers, and its answer is either the cut pagelog makes or refused:
 *
 * - below ours: refused. Every byte between the answer and ours is whole batches whose CRC
 *   matches and whose offsets follow on (pagelog's walk checks more than the course's rule), so
 *   the course's rule, and Kafka's, keep them all: no correct recover returns less, and one that
 *   does throws acknowledged records away, flushed ones too. Where the recovery point is recorded
 *   does not matter (the checkpoint file may lag the flush that made those batches durable): the
 *   bytes themselves show the cut is wrong;
 * - equal: as pagelog would;
 * - above ours: the kept bytes hold a batch reading breaks on (torn, bad CRC, past the end):
 *   refused with the position and why (the course demo's outcome for it). Only when what lies
 *   between is whole, CRC-valid batches that pagelog refuses for its stricter checks (a magic
 *   other than 2, offsets out of sequence) does the log cut at its own answer: the reader did
 *   what the course asks.
 *
 * A refusal is a PAGELOG_POLICY error thrown while planning: the open fails and no byte changes.
 * Reading the whole segment costs memory only when a reader's recover is plugged in.
 */
import { LENGTH_OFFSET, LOG_OVERHEAD } from "../../format/index.js";
import type { StorageFile } from "../../storage/storage.js";
import type { ScanStop } from "../batch-scanner.js";
import { callPolicy, policyError, shown } from "./policy-error.js";
import type { CoursePolicies } from "../../policies/policy-types.js";
import { recoverHelpers } from "./recover-helpers.js";

type RecoverPolicy = CoursePolicies["recover"];

/**
 * Where the walk of `bytes` from `from` under the course's rule ends: step by the length field,
 * stop at a batch that runs past the end or whose `crcMatches` is false. The same helpers the
 * reader got, so the Log judges exactly the rule `check` does (no magic check: Kafka's extra).
 */
function courseWalkEnd(bytes: Uint8Array, from: number, until: number): number {
  const { readInt32, crcMatches } = recoverHelpers(bytes);
  let position = from;
  while (position < until && position + LOG_OVERHEAD <= bytes.length) {
    const end = position + LOG_OVERHEAD + readInt32(bytes, position + LENGTH_OFFSET);
    if (end > bytes.length || !crcMatches(position, end)) break;
    position = end;
  }
  return position;
}

/**
 * How many bytes of `log` (`size` bytes, of which pagelog's walk found `ours.position` valid)
 * recovery keeps on the reader's `recover`; `batches` maps every batch start pagelog's walk
 * passed to its base offset (and `ours.position` to the next offset). `recoveryPoint`, when
 * recovery knows one, only adds to the words of a refusal. Throws PAGELOG_POLICY when the answer
 * cannot be used.
 */
export async function keptByPolicy(
  recover: RecoverPolicy,
  log: StorageFile,
  size: number,
  ours: ScanStop,
  batches: ReadonlyMap<number, number>,
  recoveryPoint?: number,
): Promise<number> {
  const bytes = size === 0 ? new Uint8Array(0) : await log.read(0, size);
  const answer: unknown = callPolicy("recover", () => recover(bytes, recoverHelpers(bytes)), log.path);
  const refuse = (why: string, breaksAt?: number) =>
    policyError(
      { policy: "recover", why, returned: answer, ...(breaksAt === undefined ? {} : { breaksAt }) },
      log.path,
    );
  if (typeof answer !== "number" || !Number.isInteger(answer) || answer < 0 || answer > size)
    throw refuse(
      `returned ${shown(answer)}: expected a whole number of bytes from 0 to ${size} (the size of ${log.path})`,
    );
  if (answer === ours.position) return answer;
  if (answer < ours.position) {
    const from = batches.get(answer);
    if (from === undefined)
      throw refuse(
        `returned ${answer}: inside the batch that starts at ${nearestBelow(batches, answer)} of ${log.path}, so the log would end in half a batch`,
        answer,
      );
    throw refuse(cutsValidBatches(log.path, answer, ours.position, from, batches.get(ours.position)!, recoveryPoint));
  }
  // Whole, CRC-valid batches that pagelog's stricter checks refuse (magic, offsets): cut where pagelog would.
  if (courseWalkEnd(bytes, ours.position, answer) === answer) return ours.position;
  throw refuse(
    `kept ${answer} bytes of ${log.path}, but reading breaks at position ${ours.position}: ${ours.detail}`,
    ours.position,
  );
}

/** Why a cut below pagelog's walk is refused: what it throws away, and that it is all valid. */
function cutsValidBatches(
  path: string,
  kept: number,
  valid: number,
  from: number,
  next: number,
  recoveryPoint: number | undefined,
): string {
  const flushed =
    recoveryPoint !== undefined && from < recoveryPoint
      ? `, flushed ones among them (below the recovery point ${recoveryPoint})`
      : "";
  return `kept ${kept} bytes of ${path}, but bytes ${kept} to ${valid} are whole batches whose CRC matches (offsets ${from}-${next - 1}): recover keeps every valid batch, and this cut throws acknowledged records away${flushed}`;
}

function nearestBelow(batches: ReadonlyMap<number, number>, position: number): number {
  let best = 0;
  for (const b of batches.keys()) if (b <= position && b > best) best = b;
  return best;
}
