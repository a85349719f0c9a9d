/**
 * The checks' script, checks.js: the course's cases and the crash-test engine, with the log they
 * run, for the Web Worker of "Check my code" and of the trial before "Run the log on my code".
 * web/build.mjs bundles it as a classic script wrapped in `function pagelogChecks() { ... }`,
 * whose first line, in a window, hands the function to the page and returns before anything
 * below runs; the page starts the worker from that function's source (web/src/checks/loader.ts),
 * where there is no `document` and this file's code runs.
 */
import { startWorker } from "./worker.js";

startWorker();
