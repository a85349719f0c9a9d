/** Types for scripts/kafka.mjs (the kafka tier's harness; test/kafka imports it). */
import type { ChildProcess } from "node:child_process";

export declare const REPO: string;
export declare const POM: string;
export declare const CACHE: string;
export declare const KAFKA_VERSION: string;
export declare const TOOL_JVM_FLAGS: readonly string[];
export declare const BROKER_JVM_FLAGS: readonly string[];
export type Toolchain = { ok: true } | { ok: false; reason: string };
export declare function findToolchain(): Toolchain;
export declare function kafkaClasspath(options?: { log?: (line: string) => void }): string;
export declare function compileProbe(classpath: string): string;
export declare function killGroup(pid: number): void;
export declare function groupAlive(pid: number): boolean;
export declare function spawnJava(options: {
  classpath: string;
  flags: readonly string[];
  main: string;
  args: readonly string[];
  cwd?: string;
  output: string;
  /** A Log4j2 configuration file other than test/kafka/log4j2.properties. */
  log4j?: string;
}): ChildProcess;
export declare function runJava(options: {
  classpath: string;
  main: string;
  args: readonly string[];
  timeoutMs?: number;
  /** The JVM's flags (default TOOL_JVM_FLAGS). */
  flags?: readonly string[];
}): Promise<{ code: number | null; output: string }>;
/** One PagelogProbe call: `["dump", ...DumpLogSegments arguments]` or `["records", logFile]`. */
export type ProbeCall = readonly string[];
export interface ProbeResult {
  /** "dump" or "records" (as the probe echoed it). */
  command: string;
  lines: string[];
}
export declare function runProbe(options: {
  classpath: string;
  probeDir: string;
  workDir: string;
  calls: readonly ProbeCall[];
}): Promise<ProbeResult[]>;
export declare function freePort(): Promise<number>;
export interface Broker {
  bootstrap: string;
  logDir: string;
  pid: number;
  clusterId: string;
  formatMs: number;
  startMs: number;
  logFile: string;
  /** Kills the JVM's group; `graceful`: SIGTERM first and wait up to `graceMs` (30 s) for a clean shutdown. */
  stop(options?: { graceful?: boolean; graceMs?: number }): Promise<void>;
}
export declare function startBroker(options: {
  classpath: string;
  dir: string;
  readyMs?: number;
  extra?: Record<string, string>;
  /** Start the node `dir` already holds (no format), on the ports it had. */
  restart?: boolean;
  onSpawn?: (pid: number) => void;
  /** A Log4j2 configuration file for the broker other than test/kafka/log4j2.properties. */
  log4j?: string;
  /** The broker JVM's flags (default BROKER_JVM_FLAGS). */
  jvmFlags?: readonly string[];
}): Promise<Broker>;
