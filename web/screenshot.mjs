/**
 * Takes docs/web-demo.png, the README's picture of the web demo, from a real run: builds the
 * page, opens it from disk in Chromium (playwright-core; the browser as the browser tests find
 * it), replays a seeded run to a power cut, and shoots the page down to the status lines.
 *
 *   node web/screenshot.mjs [out.png]     (default docs/web-demo.png)
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { chromium } from "playwright-core";
import { buildWeb } from "./build.mjs";

const out = resolve(process.argv[2] ?? "docs/web-demo.png");
const HASH = "#seed=16&flush=off&script=p+3,s,p+4,w,c";
const browserPath = process.env.PAGELOG_CHROMIUM || "/usr/bin/chromium";

const dir = mkdtempSync(join(tmpdir(), "pagelog-shot-"));
const browser = await chromium.launch({
  executablePath: browserPath,
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run"].concat([
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
  ]),
});
try {
  const { outdir } = await buildWeb(dir);
  const page = await browser.newPage({ viewport: { width: 1100, height: 900 }, deviceScaleFactor: 1 });
  await page.goto(pathToFileURL(join(outdir, "index.html")).href + HASH);
  await page.waitForFunction(() => window.__pagelogDemo?.ready && !window.__pagelogDemo.busy);
  await page.hover('#strip .b[data-b="280"]');
  const bottom = await page.evaluate(() => document.querySelector(".status").getBoundingClientRect().bottom);
  await page.screenshot({ path: out, clip: { x: 0, y: 0, width: 1100, height: Math.ceil(bottom) + 12 } });
  console.log(`wrote ${out}`);
} finally {
  await browser.close();
  rmSync(dir, { recursive: true, force: true });
}
