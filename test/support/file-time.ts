/**
 * What the per-file time alarm (test/setup/file-time.ts) decides, kept pure so that the
 * test-loop test can plant a slow file's figures and see it refused.
 */

/** A tier's limits for one test file, in seconds (provided by its project in vitest.config.ts). */
export interface FileLimits {
  /** The tier's name, for the message. */
  readonly tier: string;
  /** CPU seconds of the worker over the file: above it the file fails. */
  readonly cpuSeconds: number;
  /** Wall-clock seconds: above it the file warns (a loaded machine stretches wall time). */
  readonly wallSeconds: number;
}

/** What one file took. */
export interface FileTime {
  readonly wallSeconds: number;
  readonly cpuSeconds: number;
}

declare module "vitest" {
  interface ProvidedContext {
    fileLimits: FileLimits | undefined;
  }
}

/** The alarm's verdict on one file: a failure message, a warning, or neither. */
export function fileTimeVerdict(
  took: FileTime,
  limits: FileLimits,
): { failure: string | undefined; warning: string | undefined } {
  const figures = `${took.cpuSeconds.toFixed(1)} CPU-s, ${took.wallSeconds.toFixed(1)} s wall`;
  const failure =
    took.cpuSeconds > limits.cpuSeconds
      ? `test file too slow for the ${limits.tier} tier: ${figures}, over its limit of ${limits.cpuSeconds} CPU-s ` +
        `(vitest.config.ts, fileLimits). Make it smaller (test/support/budget.ts sizes the long runs) ` +
        `or git mv it to the next tier.`
      : undefined;
  const warning =
    failure === undefined && took.wallSeconds > limits.wallSeconds
      ? `slow test file for the ${limits.tier} tier: ${figures}, over ${limits.wallSeconds} s wall ` +
        `(a loaded machine stretches this; the CPU limit of ${limits.cpuSeconds} s is what fails).`
      : undefined;
  return { failure, warning };
}
