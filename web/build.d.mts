/** Types for web/build.mjs (the tests import it). */
export declare const DEFAULT_OUTDIR: string;
export declare const FILES: readonly string[];
export declare function buildWeb(outdir?: string): Promise<{
  outdir: string;
  /** app.js, the script the page loads at start. */
  jsBytes: number;
  jsGzipBytes: number;
  /** checks.js, the checks' worker, loaded on the first check. */
  checksBytes: number;
  checksGzipBytes: number;
}>;
export declare function webBuildOptions(script?: "page" | "checks"): import("esbuild").BuildOptions;
