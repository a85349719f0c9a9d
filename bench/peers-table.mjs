// `npm run bench:peers`'s arguments, its rows, and its table (bench/peers.mjs runs them): kept
// apart from the running so that a test can check them without a network or a peer installed.
import { accessSync, constants, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { resolve } from "node:path";

// better-sqlite3 12, not 13: 13 needs Node 22 (and segfaults on 20), and pagelog's floor is Node 20.
export const PEERS = { "async-append-only-log": "4.3", hypercore: "11", "better-sqlite3": "12" };

/** The goal against SQLite, a native engine: at least as fast, not 3x (see docs/performance.md). */
const SQLITE_GOAL = { op: "≥", value: 1 };

/** The size the goals are set for: below it, they are not judged (as `pagelog bench --scale`). */
export const FULL_MB = 100;

export const USAGE = `Usage: npm run bench:peers -- [options]
       node bench/peers.mjs [options]

pagelog beside async-append-only-log (${PEERS["async-append-only-log"]}.x), hypercore (${PEERS.hypercore}.x) and better-sqlite3
(${PEERS["better-sqlite3"]}.x, a table as a queue in WAL mode), installed with \`npm install --no-save --prefix <scratch>\`
in a scratch folder (never pagelog's dependencies), each cell in a fresh process, pagelog / peer in
the same round, median of the rounds.

Options:
  --mb N          MB per workload (default ${FULL_MB}; below ${FULL_MB} the goals are not judged)
  --rounds N      rounds; every cell runs once a round (default 3)
  --dir DIR       where the scratch folder is made and the durable rows run (default: the OS temp dir)
  --tmpfs DIR     where the other rows run (default /dev/shm if writable, else --dir)
  --peers-dir DIR install the peers there, or use them if already there, and keep them
  --rows a,b      only these rows: ${"append-1KiB, append-100B, durable-append, records, reopen"}
  --json          one JSON document on stdout instead of the table
  -h, --help      this text

Exit: 0 when every cell ran (goals met or not), 1 when a cell or the install failed, 2 on bad arguments.
`;

const SQLITE_NORMAL = "better-sqlite3 WAL, synchronous=NORMAL";

/**
 * The rows: the workload pagelog runs (`cell`, `dir` "disk" or "tmpfs") and, per peer, the cell
 * it runs (a peer may appear twice, as async-append-only-log does in durable-append), and the
 * peer's own goal where it is not the row's (SQLite's).
 */
export const ROWS = [
  {
    name: "append-1KiB",
    unit: "MB/s",
    what: "100 x 1 KiB per call, each call awaited; payload MB/s",
    pagelog: { cell: "append", recordBytes: 1024 },
    peers: [
      { lib: "async-append-only-log", cell: "append", recordBytes: 1024 },
      { lib: "hypercore", cell: "append", recordBytes: 1024 },
      { lib: "better-sqlite3", cell: "append", recordBytes: 1024, label: SQLITE_NORMAL, goal: SQLITE_GOAL },
    ],
    dir: "tmpfs",
    goal: { op: "≥", value: 3 },
  },
  {
    name: "append-100B",
    unit: "MB/s",
    what: "100 x 100 B per call, each call awaited; payload MB/s",
    pagelog: { cell: "append", recordBytes: 100 },
    peers: [
      { lib: "async-append-only-log", cell: "append", recordBytes: 100 },
      { lib: "hypercore", cell: "append", recordBytes: 100 },
      { lib: "better-sqlite3", cell: "append", recordBytes: 100, label: SQLITE_NORMAL, goal: SQLITE_GOAL },
    ],
    dir: "tmpfs",
    goal: { op: "≥", value: 3 },
  },
  {
    name: "durable-append",
    unit: "appends/s",
    what: "64 x 1 KiB per call on the real disk; pagelog flushMessages 1 (each call fdatasync'ed before it resolves)",
    pagelog: { cell: "durable" },
    peers: [
      { lib: "async-append-only-log", cell: "background", label: "async-append-only-log, background writer" },
      { lib: "async-append-only-log", cell: "durable", label: "async-append-only-log, onDrain per call" },
      { lib: "hypercore", cell: "durable", label: "hypercore (no fsync)" },
      { lib: "better-sqlite3", cell: "durable", label: "better-sqlite3 WAL, synchronous=FULL", goal: SQLITE_GOAL },
    ],
    dir: "disk",
    goal: { op: "≥", value: 3 },
  },
  {
    name: "records",
    unit: "MB/s",
    what: "every record of the built log in order, each value touched; pagelog records() (CRC checked)",
    pagelog: { cell: "read" },
    peers: [
      { lib: "async-append-only-log", cell: "read", label: "async-append-only-log stream()" },
      { lib: "hypercore", cell: "read", label: "hypercore createReadStream()" },
      { lib: "better-sqlite3", cell: "read", label: "better-sqlite3 SELECT by rowid", goal: SQLITE_GOAL },
    ],
    dir: "tmpfs",
    goal: { op: "≥", value: 3 },
  },
  {
    name: "reopen",
    unit: "ms",
    what: "clean reopen of the built log in a fresh process: open + ready + first record read",
    pagelog: { cell: "reopen" },
    peers: [
      { lib: "async-append-only-log", cell: "reopen" },
      { lib: "hypercore", cell: "reopen" },
      { lib: "better-sqlite3", cell: "reopen", label: "better-sqlite3 WAL" },
    ],
    dir: "tmpfs",
    // A time: pagelog / peer at most 1 against every peer is "no slower than the fastest".
    goal: { op: "≤", value: 1 },
  },
];

class UsageError extends Error {}
export { UsageError };

function isWritableDir(path) {
  try {
    if (!statSync(path).isDirectory()) return false;
    accessSync(path, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

function positive(flag, text, integer) {
  const n = Number(text);
  if (text === undefined || text === "" || !Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n)))
    throw new UsageError(`${flag} must be a positive ${integer ? "integer" : "number"}, got '${text ?? ""}'`);
  return n;
}

function directory(flag, text) {
  if (text === undefined || !isWritableDir(text))
    throw new UsageError(`${flag} must be an existing, writable directory, got '${text ?? ""}'`);
  return resolve(text);
}

/** The options from `argv` (the arguments after the script); a UsageError for anything wrong. */
export function parseArgs(argv) {
  const out = { mb: FULL_MB, rounds: 3, dir: tmpdir(), tmpfs: undefined, peersDir: undefined };
  out.rows = ROWS.map((r) => r.name);
  out.json = false;
  out.help = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const [flag, inline] = arg.startsWith("--") && arg.includes("=") ? arg.split(/=(.*)/s) : [arg, undefined];
    const value = () => inline ?? argv[++i];
    if (flag === "-h" || flag === "--help") out.help = true;
    else if (flag === "--json") out.json = true;
    else if (flag === "--mb") out.mb = positive("--mb", value(), false);
    else if (flag === "--rounds") out.rounds = positive("--rounds", value(), true);
    else if (flag === "--dir") out.dir = directory("--dir", value());
    else if (flag === "--tmpfs") out.tmpfs = directory("--tmpfs", value());
    else if (flag === "--peers-dir") {
      const dir = value();
      if (dir === undefined || dir === "") throw new UsageError("--peers-dir needs a directory");
      out.peersDir = resolve(dir);
    } else if (flag === "--rows") {
      const names = (value() ?? "").split(",").filter(Boolean);
      const unknown = names.find((n) => !ROWS.some((r) => r.name === n));
      if (names.length === 0 || unknown !== undefined)
        throw new UsageError(`--rows: unknown row '${unknown ?? ""}' (rows: ${ROWS.map((r) => r.name).join(", ")})`);
      out.rows = [...new Set(names)];
    } else throw new UsageError(`unknown option '${arg}' (see --help)`);
  }
  if (out.rounds > 99) throw new UsageError(`--rounds must be at most 99, got ${out.rounds}`);
  out.tmpfs ??= isWritableDir("/dev/shm") ? "/dev/shm" : out.dir;
  return out;
}

/** Min / median / max. */
export function stats(values) {
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return { min: s[0], median: s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2, max: s[s.length - 1] };
}

export function goalText(goal) {
  return `${goal.op} ${goal.value}`;
}

/** Whether a ratio's median meets the goal: true / false, or null below full size (not judged). */
export function judge(goal, median, mb) {
  if (mb < FULL_MB || median === undefined) return null;
  return goal.op === "≥" ? median >= goal.value : median <= goal.value;
}

function figure(n) {
  if (n === undefined || !Number.isFinite(n)) return "-";
  const a = Math.abs(n);
  return a >= 100 ? n.toFixed(0) : a >= 10 ? n.toFixed(1) : a >= 1 ? n.toFixed(2) : n.toPrecision(2);
}

/** One result row: pagelog's and the peer's values per round, and their ratios per round. */
export function summarize(row, peer, pagelogValues, peerValues, mb, error) {
  const ratios = pagelogValues.map((p, i) => p / peerValues[i]).filter((r) => Number.isFinite(r));
  const ratio = ratios.length === 0 ? null : stats(ratios);
  const goal = peer.goal ?? row.goal;
  const met = error === undefined ? judge(goal, ratio?.median, mb) : false;
  return {
    row: row.name,
    unit: row.unit,
    peer: peer.label ?? peer.lib,
    pagelog: pagelogValues.length === 0 ? null : { ...stats(pagelogValues), rounds: pagelogValues },
    peerValue: peerValues.length === 0 ? null : { ...stats(peerValues), rounds: peerValues },
    ratio,
    goal: goalText(goal),
    met,
    ...(error === undefined ? {} : { error }),
  };
}

function metCell(r, mb) {
  if (r.error !== undefined) return "FAILED";
  if (r.met === null) return mb < FULL_MB ? `n/a (--mb ${mb})` : "-";
  return r.met ? "yes" : "NO";
}

const HEAD = ["row", "unit", "pagelog", "peer", "peer median", "pagelog ÷ peer", "(min–max)", "goal", "met"];

/** The text table; figures right-aligned. */
export function renderTable(results, mb) {
  const body = results.map((r) => [
    r.row,
    r.unit,
    figure(r.pagelog?.median),
    r.peer,
    figure(r.peerValue?.median),
    r.ratio === null ? "-" : `${figure(r.ratio.median)}x`,
    r.ratio === null ? "" : `(${figure(r.ratio.min)}–${figure(r.ratio.max)})`,
    r.goal,
    metCell(r, mb),
  ]);
  const all = [HEAD, ...body];
  const widths = HEAD.map((_, c) => Math.max(...all.map((l) => l[c].length)));
  const right = new Set([2, 4, 5]);
  const line = (l) =>
    l
      .map((v, c) => (right.has(c) ? v.padStart(widths[c]) : v.padEnd(widths[c])))
      .join("  ")
      .trimEnd();
  return [line(HEAD), widths.map((w) => "-".repeat(w)).join("  "), ...body.map(line)];
}
