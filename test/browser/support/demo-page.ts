/**
 * The web demo for the browser tests: built once into a temporary folder and opened from disk
 * (file://), as a reader who double-clicks index.html would; helpers that wait on the page's
 * test hooks (docs/web-demo.md), never on time.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Page } from "playwright-core";
import { afterAll, beforeAll } from "vitest";
import { launchChromium } from "./chromium.js";
import { buildWeb } from "../../../web/build.mjs";
import type { DemoSnapshot } from "../../../src/demo/session.js";

/** Generous: a loaded 2-core machine. Waits are on DOM state, so a fast run never waits this long. */
export const WAIT_MS = 60_000;

export interface BuiltPage {
  readonly url: string;
  readonly jsBytes: number;
  readonly jsGzipBytes: number;
  /** checks.js, the checks' worker the page loads on the first check. */
  readonly checksBytes: number;
  readonly checksGzipBytes: number;
  remove(): void;
}

export async function buildPage(): Promise<BuiltPage> {
  const dir = mkdtempSync(join(tmpdir(), "pagelog-web-"));
  const built = await buildWeb(dir);
  return {
    url: pathToFileURL(join(built.outdir, "index.html")).href,
    jsBytes: built.jsBytes,
    jsGzipBytes: built.jsGzipBytes,
    checksBytes: built.checksBytes,
    checksGzipBytes: built.checksGzipBytes,
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** What the page's hooks say (window.__pagelogDemo). */
export interface Hooks {
  readonly snapshot: DemoSnapshot;
  readonly outcome: string | undefined;
  readonly message: string | undefined;
  readonly script: string;
  readonly firstRenderMs: number | undefined;
}

/** Opens the page at `hash` and waits for its first frame and the replay of the hash's script. */
export async function openDemo(page: Page, url: string, hash = ""): Promise<void> {
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  await page.goto(`${url}${hash}`, { timeout: WAIT_MS });
  await page
    .waitForFunction(() => window.__pagelogDemo?.ready === true && !window.__pagelogDemo.busy, null, {
      timeout: WAIT_MS,
    })
    .catch((err: Error) => {
      throw new Error(`the page did not start: ${errors.join("; ") || err.message}`);
    });
}

/** Waits until the page has taken exactly the steps `script` says and drawn the last one. */
export async function waitForScript(page: Page, script: string): Promise<Hooks> {
  await page.waitForFunction((want) => window.__pagelogDemo?.script === want && !window.__pagelogDemo.busy, script, {
    timeout: WAIT_MS,
  });
  return hooks(page);
}

export async function hooks(page: Page): Promise<Hooks> {
  return page.evaluate(() => {
    const h = window.__pagelogDemo!;
    return {
      snapshot: h.snapshot!,
      outcome: h.outcome,
      message: h.message,
      script: h.script,
      firstRenderMs: h.firstRenderMs,
    };
  });
}

/** Clicks a button `times` times (each click queues one step). */
export async function click(page: Page, id: string, times = 1): Promise<void> {
  for (let i = 0; i < times; i++) await page.click(`#${id}`, { timeout: WAIT_MS });
}

/**
 * Builds the page once and starts Chromium once for a describe block (closed and removed after
 * it); the returned getters are valid inside its tests.
 */
export function builtPageInChromium(chromiumPath: string): {
  readonly built: BuiltPage;
  readonly browser: Awaited<ReturnType<typeof launchChromium>>;
} {
  let built: BuiltPage | undefined;
  let browser: Awaited<ReturnType<typeof launchChromium>> | undefined;
  beforeAll(async () => {
    built = await buildPage();
    browser = await launchChromium(chromiumPath);
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    built?.remove();
  });
  return {
    get built() {
      return built!;
    },
    get browser() {
      return browser!;
    },
  };
}
