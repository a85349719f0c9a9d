// The Kafka test tier's harness (docs/testing.md, "The kafka tier"): Apache Kafka's jars fetched
// by Maven from the pinned test/kafka/pom.xml into .cache/kafka/ (ignored), a KRaft single node
// formatted in a temporary folder and started on free loopback ports, and Kafka's own tools run
// over pagelog's files. Every JVM runs in its own process group, killed whole on stop, on a
// failed start, and when this process exits or is interrupted: no java is left behind.
//
// Plain JavaScript so that a child `node` (test/kafka/harness.test.ts) can load it as it is.
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join, resolve } from "node:path";

export const REPO = resolve(import.meta.dirname, "..");
export const POM = join(REPO, "test/kafka/pom.xml");
export const CACHE = join(REPO, ".cache/kafka");
const PROBE_SOURCE = join(REPO, "test/kafka/java/PagelogProbe.java");
const LOG4J = join(REPO, "test/kafka/log4j2.properties");

/** The Kafka version test/kafka/pom.xml pins. */
export const KAFKA_VERSION = /<kafka\.version>([^<]+)<\/kafka\.version>/.exec(readFileSync(POM, "utf8"))[1];

/**
 * Short-lived tools (StorageTool, DumpLogSegments): C1 only and the serial collector start a JVM
 * fastest on 2 cores; their work is a few files, never long enough for C2 to pay off.
 */
export const TOOL_JVM_FLAGS = ["-Xmx256m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xshare:auto"];
/** The broker: a fixed 512 MiB heap (no resizing), C1 only (the tier's runs are short), serial GC (2 cores). */
export const BROKER_JVM_FLAGS = ["-Xms512m", "-Xmx512m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"];

/**
 * Whether Java 17+ and Maven are on PATH: `{ ok: true }`, or `{ ok: false, reason }` naming what is
 * missing and how to get it.
 */
export function findToolchain() {
  const java = spawnSync("java", ["-version"], { encoding: "utf8" });
  if (java.error !== undefined || java.status !== 0)
    return { ok: false, reason: "no `java` on PATH (the kafka tier needs a JDK 17 or later and Maven 3)" };
  const major = /version "(\d+)/.exec(java.stderr)?.[1];
  if (major === undefined || Number(major) < 17)
    return { ok: false, reason: `java is ${major ?? "of an unknown version"}: the kafka tier needs 17 or later` };
  const javac = spawnSync("javac", ["-version"], { encoding: "utf8" });
  if (javac.error !== undefined || javac.status !== 0)
    return { ok: false, reason: "no `javac` on PATH: the kafka tier needs a JDK, not only a JRE" };
  const mvn = spawnSync("mvn", ["-v"], { encoding: "utf8" });
  if (mvn.error !== undefined || mvn.status !== 0)
    return { ok: false, reason: "no `mvn` on PATH (the kafka tier fetches Kafka's jars with Maven 3)" };
  return { ok: true };
}

const sha = (text) => createHash("sha256").update(text).digest("hex").slice(0, 16);

/**
 * The pinned Kafka's classpath. Maven runs only when the pom changed or a jar is gone: even a
 * warm `mvn dependency:build-classpath` costs about 7 s of JVM, a cached answer nothing. The
 * Maven repository is .cache/kafka/m2, inside the repo, so a clean clone fetches cold and
 * nothing is shared with (or taken from) ~/.m2.
 */
export function kafkaClasspath({ log = () => {} } = {}) {
  const key = sha(readFileSync(POM, "utf8"));
  const record = join(CACHE, "classpath.json");
  if (existsSync(record)) {
    const cached = JSON.parse(readFileSync(record, "utf8"));
    if (cached.key === key && cached.classpath.split(":").every((jar) => existsSync(jar))) return cached.classpath;
  }
  mkdirSync(CACHE, { recursive: true });
  const out = join(CACHE, "classpath.txt");
  const started = performance.now();
  log(`kafka tier: fetching Apache Kafka ${KAFKA_VERSION} with Maven into .cache/kafka/ (once)`);
  const maven = spawnSync(
    "mvn",
    [
      "-q",
      "-B",
      "-f",
      POM,
      `-Dmaven.repo.local=${join(CACHE, "m2")}`,
      "dependency:build-classpath",
      `-Dmdep.outputFile=${out}`,
    ],
    { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 },
  );
  if (maven.status !== 0)
    throw new Error(`kafka tier: mvn could not resolve ${POM} (exit ${maven.status}):\n${maven.stdout}${maven.stderr}`);
  const classpath = readFileSync(out, "utf8").trim();
  writeFileSync(record, JSON.stringify({ key, classpath }));
  log(`kafka tier: Maven fetch took ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return classpath;
}

/** Compiles test/kafka/java/PagelogProbe.java (once per source and classpath); returns its class folder. */
export function compileProbe(classpath) {
  const source = readFileSync(PROBE_SOURCE, "utf8");
  const dir = join(CACHE, `probe-${sha(source + classpath)}`);
  if (!existsSync(join(dir, "PagelogProbe.class"))) {
    mkdirSync(dir, { recursive: true });
    execFileSync("javac", ["-nowarn", "-cp", classpath, "-d", dir, PROBE_SOURCE], { stdio: "pipe" });
  }
  return dir;
}

// ---- processes ---------------------------------------------------------------------------

/** Process groups this process started and has not seen end: killed on exit and on a signal. */
const groups = new Set();
let handlersInstalled = false;

function killAll() {
  for (const pid of groups) killGroup(pid);
}

function onSignal(signal) {
  killAll();
  // Ours was the only listener: do what the signal would have done without us.
  if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
}

function installHandlers() {
  if (handlersInstalled) return;
  handlersInstalled = true;
  process.on("exit", killAll);
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.once(signal, onSignal);
}

/** SIGKILLs a whole process group (the JVM and anything it started); a gone group is fine. */
export function killGroup(pid) {
  try {
    process.kill(-pid, "SIGKILL");
  } catch (error) {
    if (error.code !== "ESRCH") throw error;
  }
}

/** Whether any process of the group is still there (a zombie not yet reaped counts). */
export function groupAlive(pid) {
  try {
    process.kill(-pid, 0);
    return true;
  } catch (error) {
    if (error.code === "ESRCH") return false;
    throw error;
  }
}

/**
 * Starts `java <flags> -cp <classpath> <main> <args>` as the leader of its own process group,
 * registered for killing on exit. `output`: a file for its stdout and stderr, or "pipe"; `log4j`:
 * a Log4j2 configuration other than the tier's warnings-only one.
 */
export function spawnJava({ classpath, flags, main, args, cwd, output, log4j = LOG4J }) {
  installHandlers();
  const fd = output === "pipe" ? undefined : openSync(output, "a");
  const child = spawn("java", [...flags, `-Dlog4j2.configurationFile=${log4j}`, "-cp", classpath, main, ...args], {
    cwd,
    detached: true,
    stdio: ["ignore", fd ?? "pipe", fd ?? "pipe"],
  });
  if (fd !== undefined) closeSync(fd);
  const pid = child.pid;
  if (pid !== undefined) {
    groups.add(pid);
    child.once("exit", () => {
      // The leader is gone; anything it left in the group goes with it.
      killGroup(pid);
      groups.delete(pid);
    });
  }
  return child;
}

/**
 * Runs a short-lived Java tool to its end and resolves with its output; past `timeoutMs` its
 * group is killed and the promise rejects. `flags`: the JVM's, the tools' quick-start ones by default.
 */
export function runJava({ classpath, main, args, timeoutMs = 120_000, flags = TOOL_JVM_FLAGS }) {
  return new Promise((resolvePromise, reject) => {
    const child = spawnJava({ classpath, flags, main, args, output: "pipe" });
    const chunks = [];
    child.stdout.on("data", (chunk) => chunks.push(chunk));
    child.stderr.on("data", (chunk) => chunks.push(chunk));
    const timer = setTimeout(() => {
      killGroup(child.pid);
      reject(new Error(`${main} did not finish within ${timeoutMs} ms`));
    }, timeoutMs);
    child.once("error", reject);
    child.once("close", (code) => {
      clearTimeout(timer);
      resolvePromise({ code, output: Buffer.concat(chunks).toString("utf8") });
    });
  });
}

/**
 * Runs PagelogProbe over `calls` (each `["dump", ...DumpLogSegments args]` or `["records", file]`)
 * in one JVM; resolves with each call's output lines, in order.
 */
export async function runProbe({ classpath, probeDir, workDir, calls }) {
  const script = join(workDir, `probe-${randomBytes(4).toString("hex")}.txt`);
  writeFileSync(script, calls.map((call) => call.join("\t")).join("\n") + "\n");
  const { code, output } = await runJava({
    classpath: `${probeDir}:${classpath}`,
    main: "PagelogProbe",
    args: [script],
  });
  if (code !== 0) throw new Error(`PagelogProbe exited ${code}:\n${output}`);
  const results = [];
  let current;
  for (const line of output.split("\n")) {
    if (line.startsWith("@@probe end")) {
      results.push(current);
      current = undefined;
    } else if (line.startsWith("@@probe ") && current === undefined) current = { command: line.slice(8), lines: [] };
    else if (current !== undefined) current.lines.push(line);
  }
  if (results.length !== calls.length)
    throw new Error(`PagelogProbe answered ${results.length} of ${calls.length} calls:\n${output}`);
  return results;
}

// ---- the broker --------------------------------------------------------------------------

/** A free loopback port (the kernel's pick; released at once, so another process could take it first). */
export function freePort() {
  return new Promise((resolvePromise, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolvePromise(port));
    });
  });
}

function serverProperties({ port, controllerPort, logDir, extra }) {
  const lines = {
    "process.roles": "broker,controller",
    "node.id": "1",
    "controller.quorum.bootstrap.servers": `127.0.0.1:${controllerPort}`,
    listeners: `PLAINTEXT://127.0.0.1:${port},CONTROLLER://127.0.0.1:${controllerPort}`,
    "advertised.listeners": `PLAINTEXT://127.0.0.1:${port}`,
    "controller.listener.names": "CONTROLLER",
    "inter.broker.listener.name": "PLAINTEXT",
    "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
    "log.dirs": logDir,
    "num.partitions": "1",
    "offsets.topic.replication.factor": "1",
    "offsets.topic.num.partitions": "1",
    "transaction.state.log.replication.factor": "1",
    "transaction.state.log.min.isr": "1",
    "transaction.state.log.num.partitions": "1",
    "share.coordinator.state.topic.replication.factor": "1",
    "share.coordinator.state.topic.min.isr": "1",
    "group.initial.rebalance.delay.ms": "0",
    ...extra,
  };
  return Object.entries(lines)
    .map(([k, v]) => `${k}=${v}`)
    .join("\n");
}

/** Asks the broker for its cluster until it answers or `deadline` passes; kafkajs's own retries off. */
async function waitUntilAnswers({ bootstrap, deadline, exited }) {
  const { Kafka, logLevel } = await import("kafkajs");
  let last;
  while (performance.now() < deadline) {
    if (exited.code !== undefined) throw new Error(`the broker exited (${exited.code}) before it answered`);
    const admin = new Kafka({ brokers: [bootstrap], logLevel: logLevel.NOTHING, retry: { retries: 0 } }).admin();
    try {
      await admin.connect();
      const cluster = await admin.describeCluster();
      if (cluster.brokers.length > 0) return;
    } catch (error) {
      last = error;
    } finally {
      await admin.disconnect().catch(() => {});
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`the broker did not answer in time${last === undefined ? "" : `: ${last.message}`}`);
}

/**
 * Formats a KRaft single node (broker and controller in one JVM) in `dir` and starts it on free
 * loopback ports (`restart`: starts the node `dir` already holds, unformatted, on its old ports);
 * resolves once a client's DescribeCluster answers. `onSpawn(pid)` hears the
 * JVM's process group as soon as it exists; `log4j` replaces the broker's warnings-only logging
 * (the bench reads the broker's INFO lines) and `jvmFlags` its quick-start JVM flags (the bench
 * runs Kafka's production ones). On any failure the group is killed and the error
 * carries the broker's log tail.
 */
export async function startBroker({
  classpath,
  dir,
  readyMs = 90_000,
  extra = {},
  restart = false,
  onSpawn = () => {},
  log4j,
  jvmFlags = BROKER_JVM_FLAGS,
}) {
  const started = performance.now();
  const logDir = join(dir, "kafka-logs");
  const properties = join(dir, "server.properties");
  let port;
  let formatMs = 0;
  let clusterId;
  if (restart) {
    // The node `dir` already holds, on its old ports: KRaft keeps the controller's endpoint in its
    // metadata log, so a restarted single node must listen where it did.
    const text = readFileSync(properties, "utf8");
    port = Number(/^listeners=PLAINTEXT:\/\/127\.0\.0\.1:(\d+)/m.exec(text)[1]);
    clusterId = /^cluster\.id=(.+)$/m.exec(readFileSync(join(logDir, "meta.properties"), "utf8"))[1];
  } else {
    mkdirSync(dir, { recursive: true });
    const controllerPort = await freePort();
    port = await freePort();
    writeFileSync(properties, serverProperties({ port, controllerPort, logDir, extra }) + "\n");
    // A cluster id is 16 random bytes in base64url (what `kafka-storage.sh random-uuid` prints);
    // one that starts with "-" (1 in 64) would be read by StorageTool's parser as an option.
    do clusterId = randomBytes(16).toString("base64url");
    while (clusterId.startsWith("-"));
    const format = await runJava({
      classpath,
      main: "kafka.tools.StorageTool",
      args: ["format", "-t", clusterId, "-c", properties, "--standalone"],
    });
    if (format.code !== 0) throw new Error(`StorageTool format exited ${format.code}:\n${format.output}`);
    formatMs = performance.now() - started;
  }
  const logFile = join(dir, "broker.out");
  const child = spawnJava({
    classpath,
    flags: jvmFlags,
    main: "kafka.Kafka",
    args: [properties],
    cwd: dir,
    output: logFile,
    log4j,
  });
  const pid = child.pid;
  const exited = { code: undefined };
  const done = new Promise((r) => child.once("exit", (code, signal) => r((exited.code = code ?? signal))));
  const bootstrap = `127.0.0.1:${port}`;
  // graceful: SIGTERM first, Kafka's controlled shutdown (segments closed, indexes trimmed, the
  // clean-shutdown marker written), then SIGKILL whatever is left after `graceMs`.
  const stop = async ({ graceful = false, graceMs = 30_000 } = {}) => {
    if (graceful && exited.code === undefined) {
      process.kill(pid, "SIGTERM");
      await Promise.race([done, new Promise((r) => setTimeout(r, graceMs))]);
    }
    killGroup(pid);
    await done;
    // A SIGKILLed JVM takes a moment to unmap its heap: stop resolves once its group is gone.
    for (let i = 0; i < 200 && groupAlive(pid); i++) await new Promise((r) => setTimeout(r, 50));
    if (groupAlive(pid)) throw new Error(`the broker's JVM group ${pid} is still alive 10 s after SIGKILL`);
  };
  try {
    onSpawn(pid);
    await waitUntilAnswers({ bootstrap, deadline: started + readyMs, exited });
  } catch (error) {
    await stop();
    const tail = existsSync(logFile) ? readFileSync(logFile, "utf8").split("\n").slice(-30).join("\n") : "";
    throw new Error(`kafka broker did not start: ${error.message}\n--- ${logFile} (tail) ---\n${tail}`);
  }
  return { bootstrap, logDir, pid, clusterId, formatMs, startMs: performance.now() - started, logFile, stop };
}
