/**
 * The page's one script. web/build.mjs bundles it as a classic script (it works from file://)
 * wrapped in `function pagelogDemo() { ... }`. In a window it starts the page; in the Web Worker
 * the page makes from that function's own source it runs the checks: one copy of the code serves
 * both, so there is no worker file to load (Chromium will not start one from file://) and the
 * log is in the bundle once.
 */
import { startPage } from "./page.js";
import { startWorker } from "./worker.js";

/** The function web/build.mjs wraps the bundle in. */
declare const pagelogDemo: () => void;

if (typeof document === "undefined") startWorker();
else
  void startPage(() => `(${pagelogDemo.toString()})()`).catch((err: unknown) => {
    document.body.insertAdjacentText("afterbegin", `the demo failed to start: ${String(err)}`);
    throw err;
  });
