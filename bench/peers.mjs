// npm run bench:peers: pagelog beside async-append-only-log, hypercore and better-sqlite3 (SQLite, a
// table as a queue in WAL mode), the same workloads, each
// cell in a fresh process (bench/peers-child.mjs), pagelog / peer in the same round, medians of
// the rounds (issue 23). The peers are installed in a scratch folder with
// `npm install --no-save --prefix <scratch>`: they are never pagelog's dependencies. pagelog runs
// from this checkout's dist/ (`npm run bench:peers` builds it first when stale).
// docs/performance.md ("Peers") says what each cell measures.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { cpus } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { FULL_MB, parseArgs, PEERS, renderTable, ROWS, summarize, USAGE, UsageError } from "./peers-table.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const childScript = fileURLToPath(new URL("./peers-child.mjs", import.meta.url));
const say = (line) => process.stderr.write(`bench:peers: ${line}\n`);

class SetupError extends Error {}

function installedVersion(peersDir, name) {
  try {
    return JSON.parse(readFileSync(join(peersDir, "node_modules", name, "package.json"), "utf8")).version;
  } catch {
    return undefined;
  }
}

const matches = (version, range) => version !== undefined && (version === range || version.startsWith(`${range}.`));

/** `npm install --no-save --prefix dir specs…`; a SetupError saying why when it fails. */
function npmInstall(peersDir, specs) {
  mkdirSync(peersDir, { recursive: true });
  say(`npm install --no-save --prefix ${peersDir} ${specs.join(" ")}`);
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  // --loglevel: under `npm run -s` the child inherits npm_config_loglevel=silent, and a failed
  // install would say nothing of why.
  const args = [
    "install",
    "--no-save",
    "--no-audit",
    "--no-fund",
    "--no-package-lock",
    "--loglevel",
    "error",
    "--prefix",
    peersDir,
  ];
  const run = spawnSync(npm, [...args, ...specs], { cwd: peersDir, encoding: "utf8", timeout: 600_000 });
  if (run.error !== undefined || run.status !== 0) {
    throw new SetupError(`npm install of ${specs.join(" ")} failed (no network, or no registry?): ${npmWhy(run)}`);
  }
}

/** npm's own reason: its `code` line and its first message line (not the stack, nor the log's path). */
function npmWhy(run) {
  if (run.error !== undefined) return run.error.message;
  const lines = `${run.stderr}\n${run.stdout}`
    .split("\n")
    .map((l) => l.replace(/^npm (error|ERR!)\s*/, "").trim())
    .filter((l) => l !== "" && !/^at |^\{|^\}|complete log|^syscall|^errno/.test(l));
  return lines.slice(0, 2).join(": ") || `exit ${run.status}`;
}

/** Whether hypercore loads and opens a core here (its storage is native: RocksDB in 11). */
function hypercoreWorks(peersDir, scratch) {
  const probe = join(scratch, "hypercore-probe");
  const code = `const H = require(${JSON.stringify(join(peersDir, "node_modules", "hypercore"))});
    const c = new H(${JSON.stringify(probe)}); c.ready().then(() => c.append(Buffer.from("x"))).then(() => c.close())
    .then(() => process.exit(0), (e) => { console.error(e.message); process.exit(1); });`;
  const run = spawnSync(process.execPath, ["-e", code], { encoding: "utf8", timeout: 60_000 });
  rmSync(probe, { recursive: true, force: true });
  return run.status === 0 ? undefined : (run.stderr.trim().split("\n").pop() ?? `exit ${run.status}`);
}

/** The peers installed (or found) in `peersDir`; notes on what was done (a fallback to hypercore 10). */
function preparePeers(peersDir, scratch) {
  const notes = [];
  const missing = Object.entries(PEERS)
    .filter(([name, range]) => !matches(installedVersion(peersDir, name), range))
    .map(([name, range]) => `${name}@${range}`);
  if (missing.length > 0) npmInstall(peersDir, missing);
  const broken = hypercoreWorks(peersDir, scratch);
  if (broken !== undefined) {
    notes.push(
      `hypercore ${installedVersion(peersDir, "hypercore")} does not run here (${broken}): hypercore 10 instead`,
    );
    npmInstall(peersDir, ["hypercore@10"]);
    const still = hypercoreWorks(peersDir, scratch);
    if (still !== undefined) throw new SetupError(`hypercore 10 does not run here either: ${still}`);
  }
  for (const name of Object.keys(PEERS))
    if (installedVersion(peersDir, name) === undefined) throw new SetupError(`${name} is not installed in ${peersDir}`);
  return notes;
}

let running;

/** One cell in a fresh process: resolves with its report, rejects with its error line. */
function runCell(job) {
  return new Promise((resolveCell, reject) => {
    const child = spawn(process.execPath, [childScript, JSON.stringify(job)], { stdio: ["ignore", "pipe", "pipe"] });
    running = child;
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (t) => (stdout += t));
    child.stderr.setEncoding("utf8").on("data", (t) => (stderr += t));
    child.on("error", reject);
    child.on("close", (code, signal) => {
      running = undefined;
      const last = stdout.trim().split("\n").pop() ?? "";
      if (code === 0) {
        try {
          return resolveCell(JSON.parse(last));
        } catch {
          return reject(new Error(`${job.lib} ${job.cell}: no report (${last.slice(0, 120)})`));
        }
      }
      reject(
        new Error(stderr.trim().split("\n").filter(Boolean).pop() ?? `${job.lib} ${job.cell}: exit ${code ?? signal}`),
      );
    });
  });
}

const LIBS = ["pagelog", ...Object.keys(PEERS)];

/** Runs every round; per row and peer, the values of pagelog and the peer, round by round. */
async function measure(options, dirs, peersDir) {
  const rows = ROWS.filter((r) => options.rows.includes(r.name));
  const base = { root, peers: peersDir, mb: options.mb };
  const built = {};
  if (rows.some((r) => r.pagelog.cell === "read" || r.pagelog.cell === "reopen")) {
    for (const lib of LIBS) {
      const path = join(dirs.tmpfs, `${lib}-built`);
      const report = await runCell({ ...base, lib, cell: "build", path });
      built[lib] = { path, count: Math.round(report.bytes / 1024) };
      say(`built the ${options.mb} MB log of ${lib} in ${(report.value / 1000).toFixed(1)} s`);
    }
  }
  const values = new Map(); // "row lib cell" -> numbers, or an error
  const key = (row, c) => `${row.name} ${c.lib} ${c.cell}`;
  for (let round = 1; round <= options.rounds; round++) {
    for (const row of rows) {
      for (const c of [{ lib: "pagelog", ...row.pagelog }, ...row.peers]) {
        const k = key(row, c);
        const slot = values.get(k) ?? { values: [] };
        values.set(k, slot);
        if (slot.error !== undefined) continue;
        // Reads and reopens use the log built before the rounds; the appends write a fresh one.
        const reads = c.cell === "read" || c.cell === "reopen";
        const path = reads
          ? built[c.lib].path
          : join(row.dir === "disk" ? dirs.disk : dirs.tmpfs, `${c.lib}-${c.cell}`);
        try {
          const job = { ...base, lib: c.lib, cell: c.cell, recordBytes: c.recordBytes ?? 1024, path };
          if (c.cell === "read") job.expect = built[c.lib].count;
          slot.values.push((await runCell(job)).value);
        } catch (err) {
          slot.error = err.message;
          say(`round ${round}: ${row.name} ${c.lib} failed: ${err.message}`);
        }
      }
      say(`round ${round}/${options.rounds}: ${row.name} done`);
    }
  }
  return rows.flatMap((row) => {
    const mine = values.get(key(row, { lib: "pagelog", ...row.pagelog }));
    return row.peers.map((peer) => {
      const theirs = values.get(key(row, peer));
      const error = mine.error ?? theirs.error;
      const n = Math.min(mine.values.length, theirs.values.length);
      return summarize(row, peer, mine.values.slice(0, n), theirs.values.slice(0, n), options.mb, error);
    });
  });
}

function header(options, peersDir, notes) {
  const cpu = cpus()[0]?.model.trim() ?? "unknown CPU";
  const versions = LIBS.slice(1).map((name) => `${name} ${installedVersion(peersDir, name)}`);
  const pagelogVersion = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).version;
  return {
    date: new Date().toISOString(),
    node: process.version,
    cpu,
    cores: cpus().length,
    libraries: [`pagelog ${pagelogVersion} (dist/)`, ...versions],
    mb: options.mb,
    rounds: options.rounds,
    disk: options.dir,
    tmpfs: options.tmpfs,
    goalsJudged: options.mb >= FULL_MB,
    notes,
  };
}

function printText(meta, results) {
  const lines = [
    `pagelog bench:peers · ${meta.date} · node ${meta.node} · ${meta.cpu} · ${meta.cores} cores`,
    `${meta.libraries.join(" · ")}`,
    `${meta.mb} MB per workload · ${meta.rounds} rounds · durable rows: ${meta.disk} · others: ${meta.tmpfs}`,
    "",
    ...renderTable(results, meta.mb),
    "",
    "pagelog ÷ peer: pagelog's figure over the peer's in the same round (for reopen, in ms: lower is faster),",
    "median (min–max) of the rounds; goal: ≥ 3x the JS peers and ≥ 1x SQLite on every throughput row, a reopen",
    "no slower than the fastest peer. Against Kafka itself: `npm run bench -- --rows kafka` (docs/performance.md).",
    ...(meta.goalsJudged ? [] : [`goals: n/a at --mb ${meta.mb}: they are set for ${FULL_MB} MB runs.`]),
    ...ROWS.filter((r) => results.some((x) => x.row === r.name)).map((r) => `${r.name}: ${r.what}`),
    ...meta.notes,
    ...results.filter((r) => r.error !== undefined).map((r) => `${r.row} vs ${r.peer}: FAILED: ${r.error}`),
  ];
  process.stdout.write(`${lines.join("\n")}\n`);
}

async function main() {
  let options;
  try {
    options = parseArgs(process.argv.slice(2));
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    say(err.message);
    return 2;
  }
  if (options.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const scratch = mkdtempSync(join(options.dir, "pagelog-peers-"));
  const tmpfs = mkdtempSync(join(options.tmpfs, "pagelog-peers-"));
  const peersDir = options.peersDir ?? join(scratch, "peers");
  const cleanup = () => {
    for (const dir of [scratch, tmpfs]) rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
  };
  const onSignal = (signal) => {
    running?.kill("SIGKILL");
    cleanup();
    say(`${signal}: stopped, the scratch folders removed`);
    process.exit(signal === "SIGTERM" ? 143 : 130);
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  try {
    const notes = preparePeers(peersDir, scratch);
    if (!existsSync(join(root, "dist", "node.js")))
      throw new SetupError("no dist/ here: run `npm run build` (npm run bench:peers builds it)");
    const disk = join(scratch, "data");
    mkdirSync(disk);
    const meta = header(options, peersDir, notes);
    const started = Date.now();
    const results = await measure(options, { disk, tmpfs }, peersDir);
    say(`ran in ${((Date.now() - started) / 1000).toFixed(0)} s`);
    if (options.json) process.stdout.write(`${JSON.stringify({ meta, rows: results }, null, 2)}\n`);
    else printText(meta, results);
    return results.some((r) => r.error !== undefined) ? 1 : 0;
  } catch (err) {
    if (!(err instanceof SetupError)) throw err;
    say(err.message);
    return 1;
  } finally {
    cleanup();
  }
}

process.exitCode = await main();
