/** Types for web/build.mjs (the tests import it). */
export declare const DEFAULT_OUTDIR: string;
export declare const FILES: readonly string[];
export declare function buildWeb(outdir?: string): Promise<{ outdir: string; jsBytes: number; jsGzipBytes: number }>;
export declare function webBuildOptions(): import("esbuild").BuildOptions;
