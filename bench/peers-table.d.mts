/** Types for bench/peers-table.mjs (the tests import it). */
export declare const PEERS: Readonly<Record<string, string>>;
export declare const FULL_MB: number;
export declare const USAGE: string;
export interface PeerGoal {
  readonly op: "≥" | "≤";
  readonly value: number;
}
export interface PeerCell {
  readonly lib: string;
  readonly cell: string;
  readonly recordBytes?: number;
  readonly label?: string;
  /** This peer's goal, where it is not the row's (SQLite's ≥ 1). */
  readonly goal?: PeerGoal;
}
export interface PeerRow {
  readonly name: string;
  readonly unit: string;
  readonly what: string;
  readonly pagelog: Omit<PeerCell, "lib">;
  readonly peers: readonly PeerCell[];
  readonly dir: "disk" | "tmpfs";
  readonly goal: PeerGoal;
}
export declare const ROWS: readonly PeerRow[];
export declare class UsageError extends Error {}
export interface PeerOptions {
  mb: number;
  rounds: number;
  dir: string;
  tmpfs: string;
  peersDir: string | undefined;
  rows: string[];
  json: boolean;
  help: boolean;
}
export declare function parseArgs(argv: readonly string[]): PeerOptions;
export interface PeerStats {
  readonly min: number;
  readonly median: number;
  readonly max: number;
}
export declare function stats(values: readonly number[]): PeerStats;
export declare function goalText(goal: PeerGoal): string;
export declare function judge(goal: PeerGoal, median: number | undefined, mb: number): boolean | null;
export interface PeerResult {
  readonly row: string;
  readonly unit: string;
  readonly peer: string;
  readonly pagelog: (PeerStats & { rounds: number[] }) | null;
  readonly peerValue: (PeerStats & { rounds: number[] }) | null;
  readonly ratio: PeerStats | null;
  readonly goal: string;
  readonly met: boolean | null;
  readonly error?: string;
}
export declare function summarize(
  row: PeerRow,
  peer: PeerCell,
  pagelogValues: readonly number[],
  peerValues: readonly number[],
  mb: number,
  error?: string,
): PeerResult;
export declare function renderTable(results: readonly PeerResult[], mb: number): string[];
