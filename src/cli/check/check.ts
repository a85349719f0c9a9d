/**
 * `pagelog check`: runs the course's unit cases against a reader's policies (a module exporting
 * any of writeVarint, lookup, segmentsToDelete, recover) or, without --policies, against
 * pagelog's own. The cases live in src/course (browser-safe); this is the loading and printing.
 */
import type { PoliciesCheck } from "../../course/check-policies.js";
import { kafkaPolicies } from "../../course/kafka-policies.js";
import { POLICY_NAMES } from "../../policies/policy-types.js";
import { parseCommandLine } from "../terminal/args.js";
import { checkWithTimeout } from "./check-worker.js";
import { type CliIo, UsageError } from "../terminal/io.js";
import { loadPolicies } from "../modules/policies-module.js";
import { plural } from "../../text/plural.js";

export const CHECK_HELP = `pagelog check [--policies ./my-policies.mjs] [--json] [--timeout S]

Runs the unit cases of the course's four storage exercises (docs/homework.md) and prints, per
policy, each case that passed and, for each that failed, why:

  writeVarint(value)                        chapter 1: zigzag varint, as byte values
  lookup(index, target)                     chapter 2: floor entry of an offset index, binary search
  segmentsToDelete(segments, now, limits)   chapter 3: how many oldest segments retention deletes
  recover(log, { readInt32, crcMatches })   chapter 4: bytes of whole, valid batches at the start

The module (ES or CommonJS) exports any of them by name, or as one default object; the ones it
does not export are skipped. Without --policies, checks pagelog's own answers.

Options:
  --policies PATH  the module with your policies
  --json           print { policies: { name: { given, passed, failed: [{ case, reason }] } } }
  --timeout S      seconds each of your policies may take for all its cases (default 10): one
                   that does not finish (an infinite loop?) fails them, in its own worker thread
  -h, --help       show this help

Exit status: 0 every given policy passes, 1 a case failed, 2 usage (no module, none of the four).
`;

const OPTIONS = {
  policies: { type: "string" },
  json: { type: "boolean" },
  timeout: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

export async function run(args: string[], io: CliIo): Promise<number> {
  const { values } = parseCommandLine(args, OPTIONS, false);
  if (values.help) {
    io.stdout.write(CHECK_HELP);
    return 0;
  }
  const path = values.policies;
  const timeoutMs = 1000 * positiveNumber(values.timeout, "timeout", 10);
  const policies = path === undefined ? kafkaPolicies : await loadPolicies(path);
  const result = await checkWithTimeout(policies, path, timeoutMs);
  if (values.json) io.stdout.write(`${JSON.stringify(asJson(result), null, 2)}\n`);
  else printResult(result, path === undefined ? "pagelog's own policies (kafkaPolicies)" : path, io);
  return POLICY_NAMES.some((name) => result[name].failed.length > 0) ? 1 : 0;
}

function asJson(result: PoliciesCheck): unknown {
  const policies: Record<string, unknown> = {};
  for (const name of POLICY_NAMES) {
    const { given, passed, failed } = result[name];
    policies[name] = { given, passed: passed.length, failed };
  }
  return { policies };
}

function printResult(result: PoliciesCheck, what: string, io: CliIo): void {
  const lines = [`pagelog check · ${what}`, ""];
  let passed = 0;
  let failed = 0;
  for (const name of POLICY_NAMES) {
    const check = result[name];
    if (!check.given) {
      lines.push(`${name}: not given (skipped)`, "");
      continue;
    }
    passed += check.passed.length;
    failed += check.failed.length;
    const counts = `${check.passed.length} passed${check.failed.length > 0 ? `, ${check.failed.length} failed` : ""}`;
    lines.push(`${name}: ${counts}`);
    for (const c of check.passed) lines.push(`  ok    ${c}`);
    for (const f of check.failed) lines.push(`  FAIL  ${f.reason}`);
    lines.push("");
  }
  lines.push(
    failed === 0
      ? `all given policies pass (${plural(passed, "case")})`
      : `${failed} of ${plural(passed + failed, "case")} failed`,
  );
  io.stdout.write(`${lines.join("\n")}\n`);
}

function positiveNumber(text: string | undefined, name: string, fallback: number): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!(value > 0 && value <= 3600))
    throw new UsageError(`--${name} must be a number of seconds in (0, 3600], got '${text}'`);
  return value;
}
