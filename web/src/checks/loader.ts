/**
 * checks.js, the checks' worker (web/src/checks/main.ts), is not in the page's script: the page
 * adds it as a classic `<script>` the first time the reader asks for a check, and every checks'
 * worker is started from its source as a Blob URL. A classic script, because a page opened from
 * file:// loads no modules, and a Blob URL because Chromium starts no worker from a file:// URL.
 */

declare global {
  interface Window {
    /** Set by checks.js when it runs in a window (web/build.mjs wraps it in this function). */
    pagelogChecks?: () => void;
  }
}

/** The script's name, beside index.html (web/build.mjs's FILES). */
const CHECKS_SCRIPT = "checks.js";

let loading: Promise<string> | undefined;

/**
 * The checks' worker's source: loads checks.js on the first call (and again after a failed
 * load), then answers at once.
 */
export function checksWorkerSource(): Promise<string> {
  loading ??= new Promise<string>((resolve, reject) => {
    const script = document.createElement("script");
    script.src = CHECKS_SCRIPT;
    script.onload = () => {
      const checks = window.pagelogChecks;
      if (checks === undefined) reject(new Error(`${CHECKS_SCRIPT} loaded but did not hand over the checks`));
      else resolve(`(${checks.toString()})()`);
    };
    script.onerror = () => {
      script.remove();
      reject(new Error(`could not load ${CHECKS_SCRIPT}, the checks' script (is it beside index.html?)`));
    };
    document.head.append(script);
  }).catch((err: unknown) => {
    loading = undefined;
    throw err;
  });
  return loading;
}
