/**
 * The browser tests' Chromium: an installed one (Debian's `chromium`), driven by playwright-core,
 * which downloads nothing. Found by $PAGELOG_CHROMIUM, then /usr/bin/chromium, then
 * /usr/bin/chromium-browser. Without one, the tests fail under CI=true (never a silent skip in
 * CI) and are skipped with a printed reason elsewhere.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Browser, type BrowserContext, chromium } from "playwright-core";
import { describe, it } from "vitest";

export const INSTALL_HELP =
  "the browser tests need Chromium: `sudo apt-get install chromium` (Debian/Ubuntu), or set PAGELOG_CHROMIUM to a Chromium or Chrome binary";

/** The browser to run, or why there is none. */
export function findChromium(): { path: string } | { problem: string } {
  const given = process.env.PAGELOG_CHROMIUM;
  if (given !== undefined && given !== "")
    return existsSync(given) ? { path: given } : { problem: `PAGELOG_CHROMIUM=${given} does not exist` };
  for (const path of ["/usr/bin/chromium", "/usr/bin/chromium-browser"]) if (existsSync(path)) return { path };
  return { problem: "no Chromium found at /usr/bin/chromium or /usr/bin/chromium-browser" };
}

/**
 * `describe(name, body)` when a Chromium is there. Without one: under CI=true a failing test
 * that says how to install it; elsewhere a skipped suite and a line on stderr saying why.
 */
export function describeInChromium(name: string, body: (chromiumPath: string) => void): void {
  const found = findChromium();
  if ("path" in found) {
    describe(name, () => body(found.path));
    return;
  }
  const why = `${found.problem}; ${INSTALL_HELP}`;
  if (process.env.CI === "true") {
    describe(name, () => {
      it("has a Chromium to run in (CI=true: the browser tests never skip)", () => {
        throw new Error(why);
      });
    });
    return;
  }
  process.stderr.write(`skipping "${name}": ${why}\n`);
  describe.skip(name, () => body(""));
}

/** The flags for a closed network and a loaded machine: no sandbox (root), no GPU, no background traffic. */
const ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-dev-shm-usage",
];

/** A browser with a fresh profile, removed on close. */
export async function launchChromium(path: string): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  const profile = mkdtempSync(join(tmpdir(), "pagelog-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: path,
    args: ARGS,
    headless: true,
    viewport: { width: 1000, height: 900 },
    deviceScaleFactor: 1,
    timeout: 60_000,
  });
  return {
    context,
    close: async () => {
      await context.close().catch(() => undefined);
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

export type { Browser };
