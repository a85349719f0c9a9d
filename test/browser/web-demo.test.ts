/**
 * The web demo (web/, issue 13) in a real Chromium, opened from disk: the buttons, keys and URL
 * drive pagelog's DemoSession, and the page shows what the same run reports in Node: outcome
 * lines, log end offsets, BROKEN for a wrong `recover`, the checks in a Web Worker. Waits are on
 * the page's test hooks, never on time. First render is reported, not asserted.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import type { Page } from "playwright-core";
import { afterEach, beforeEach, expect, it } from "vitest";
import { checkPolicies } from "../../src/course.js";
import { compilePolicies } from "../../web/src/your-code.js";
import { describeInChromium } from "./support/chromium.js";
import { builtPageInChromium, click, hooks, openDemo, WAIT_MS, waitForScript } from "./support/demo-page.js";
import { runInNode } from "./support/node-demo.js";
import { servePage } from "./support/serve-page.js";

/** Trusts each batch's length, never its CRC: keeps a torn batch (test/fixtures/policies). */
const RECOVER_NO_CRC = readFileSync(resolve(import.meta.dirname, "../fixtures/policies/recover-no-crc.mjs"), "utf8");
const RECOVERED = /^restart after a power cut: recovery cut (\d+) bytes?; log end offset (\d+) -> (\d+): (.*)$/;

describeInChromium("the web demo in Chromium", (chromiumPath) => {
  const chromium = builtPageInChromium(chromiumPath);
  let page: Page;
  beforeEach(async () => {
    page = await chromium.browser.context.newPage();
  });
  afterEach(async () => {
    await page.close();
  });

  const text = (selector: string) => page.textContent(selector, { timeout: WAIT_MS });

  it("opens from disk (file://) and draws its first frame; the first render time is reported", async () => {
    await openDemo(page, chromium.built.url);
    const h = await hooks(page);
    expect(h.snapshot.power).toBe("on");
    expect(h.snapshot.endOffset).toBe(0);
    expect(await text("#outcome")).toBe("no power cut or restart yet");
    expect(await text("#running-on")).toBe("running on: pagelog's own functions");
    expect(page.url()).toMatch(/#seed=1&flush=off$/);
    console.log(
      `web demo: first render ${h.firstRenderMs!.toFixed(0)} ms after navigation start (file://; app.js ${(chromium.built.jsGzipBytes / 1024).toFixed(1)} KB gzipped)`,
    );
  });

  it("produce x7 (a flush after 3), write back, cut, restart: the outcome line and log end offset are the simulator's", async () => {
    await openDemo(page, chromium.built.url, "#seed=1");
    await click(page, "produce", 3);
    await click(page, "flush");
    await click(page, "produce", 4);
    await click(page, "writeback");
    await click(page, "cut");
    let h = await waitForScript(page, "p 3,s,p 4,w,c");
    expect(h.outcome).toMatch(
      /^POWER CUT with \d+ dirty pages? in the page cache: .*The log needs recovery: restart \(r\)$/,
    );
    expect(await page.getAttribute("#outcome", "data-kind")).toBe("lost");
    expect(await text("#status")).toMatch(/^POWER OFF · broker down · acknowledged up to offset 13 /);

    await click(page, "restart");
    h = await waitForScript(page, "p 3,s,p 4,w,c,r");
    const node = await runInNode(1, "p 3,s,p 4,w,c,r");
    expect(h.outcome).toBe(node.messages.at(-1));
    const [, cut, before, after, losses] = RECOVERED.exec(h.outcome!)!;
    expect(Number(cut)).toBeGreaterThan(0);
    expect(losses).toBe(`${Number(before) - Number(after)} acknowledged records LOST`);
    expect(await text("#outcome")).toBe(h.outcome);
    expect(await page.getAttribute("#outcome", "data-kind")).toBe("recovered");
    expect(await text("#end-offset")).toBe(after);
    expect(Number(after)).toBe(node.snapshot.endOffset);
    expect(page.url()).toMatch(/#seed=1&flush=off&script=p\+3,s,p\+4,w,c,r$/);
  });

  it("flush every 1 batch: produce x6, cut, restart loses nothing", async () => {
    await openDemo(page, chromium.built.url, "#seed=3");
    await page.selectOption("#flush-every", "1");
    await click(page, "produce", 6);
    await click(page, "cut");
    await click(page, "restart");
    const h = await waitForScript(page, "f 1,p 6,c,r");
    const node = await runInNode(3, "f 1,p 6,c,r");
    expect(h.outcome).toBe(node.messages.at(-1));
    const [, , before, after, losses] = RECOVERED.exec(h.outcome!)!;
    expect(losses).toBe("nothing lost");
    expect(after).toBe(before);
    expect(await text("#end-offset")).toBe(after);
    expect(Number(after)).toBeGreaterThanOrEqual(6);
  });

  it("the URL replays a run: the same seed and script give the same bytes and outcome", async () => {
    const script = "p 3,s,p 4,w,c,r";
    await openDemo(page, chromium.built.url, `#seed=16&script=${encodeURIComponent(script)}`);
    const h = await waitForScript(page, script);
    const node = await runInNode(16, script);
    expect(h.outcome).toBe(node.messages.at(-1));
    expect(h.snapshot).toEqual(node.snapshot);
    expect(await page.inputValue("#seed")).toBe("16");
  });

  it("a restart with the power on is a clean shutdown; a new seed or a pasted link starts another run", async () => {
    await openDemo(page, chromium.built.url, "#seed=1");
    await click(page, "produce", 2);
    await click(page, "restart");
    await waitForScript(page, "p 2,r");
    expect(await text("#outcome")).toBe("restart after a clean shutdown: clean, nothing lost");
    expect(await page.getAttribute("#outcome", "data-kind")).toBe("clean");

    await page.fill("#seed", "7");
    await page.press("#seed", "Enter");
    await page.waitForFunction(() => location.hash === "#seed=7&flush=off" && !window.__pagelogDemo!.busy, null, {
      timeout: WAIT_MS,
    });
    expect((await hooks(page)).snapshot.config.seed).toBe(7);

    await page.evaluate(() => (location.hash = "#seed=16&script=p+3,s,p+4,w,c"));
    const h = await waitForScript(page, "p 3,s,p 4,w,c");
    expect(h.outcome).toBe((await runInNode(16, "p 3,s,p 4,w,c")).messages.at(-1));
  });

  it("keys as in the terminal demo: p, f, w, s, c, r; a runs Auto until pressed again", async () => {
    await openDemo(page, chromium.built.url, "#seed=5");
    for (const key of ["p", "p", "f", "w", "s", "c", "r"]) await page.keyboard.press(key);
    const h = await waitForScript(page, "p 2,f 1,w,s,c,r");
    expect(h.outcome).toBe((await runInNode(5, "p 2,f 1,w,s,c,r")).messages.at(-1));
    expect(await page.inputValue("#flush-every")).toBe("1");

    await page.keyboard.press("a");
    expect(await page.getAttribute("#auto", "aria-pressed")).toBe("true");
    await page.waitForFunction(() => /,p [3-9]$/.test(window.__pagelogDemo!.script), null, { timeout: WAIT_MS });
    await page.keyboard.press("a");
    expect(await page.getAttribute("#auto", "aria-pressed")).toBe("false");
  });

  it("hovering a byte shows its page, its batch and its state", async () => {
    await openDemo(page, chromium.built.url, "#seed=1&script=p+3,s,p+2");
    await page.hover('#strip .b[data-b="70"]');
    expect(await text("#hover")).toMatch(
      /^byte 70 · page 1 \(bytes 64-127\) · batch at offset \d+ \(bytes \d+-\d+\) · on disk$/,
    );
    const last = (await hooks(page)).snapshot.segment!.size - 1;
    await page.hover(`#strip .b[data-b="${last}"]`);
    expect(await text("#hover")).toMatch(new RegExp(`^byte ${last} · page \\d+ .* · page cache only$`));
  });

  it("a segment picker once the log rolls: the active segment, or an older one", async () => {
    await openDemo(page, chromium.built.url, "#seed=2&script=p+20");
    expect(await page.isVisible("#segment-picker")).toBe(true);
    const count = (await hooks(page)).snapshot.segment!.segmentCount;
    await page.selectOption("#segment-picker", "1");
    await page.waitForFunction(() => window.__pagelogDemo!.snapshot!.segment!.segmentNumber === 1, null, {
      timeout: WAIT_MS,
    });
    expect(await text("#segment-title")).toMatch(
      new RegExp(`^sensors-0/00000000000000000000.log · segment 1 of ${count} · `),
    );
    await page.selectOption("#segment-picker", "");
    await page.waitForFunction((n) => window.__pagelogDemo!.snapshot!.segment!.segmentNumber === n, count, {
      timeout: WAIT_MS,
    });
  });

  it("a wrong recover (it keeps a torn batch) makes the restart BROKEN, at the position where reading fails", async () => {
    await openDemo(page, chromium.built.url, "#seed=1&script=p+3,s,p+4,w,c");
    await page.fill("#code", RECOVER_NO_CRC);
    await click(page, "use-code");
    await page.waitForFunction(() => location.hash.includes("&code=") && !window.__pagelogDemo!.busy, null, {
      timeout: WAIT_MS,
    });
    expect(await text("#running-on")).toBe("running on: your recover");
    await click(page, "restart");
    const h = await waitForScript(page, "p 3,s,p 4,w,c,r");
    const node = await runInNode(1, "p 3,s,p 4,w,c,r", { policies: compilePolicies(RECOVER_NO_CRC).policies });
    expect(h.outcome).toBe(node.messages.at(-1));
    const at =
      /^restart after a power cut: BROKEN: your recover kept \d+ bytes of \S+, but reading breaks at position (\d+): .+\. The log stays down/.exec(
        h.outcome!,
      );
    expect(at, h.outcome).not.toBeNull();
    expect(await page.getAttribute("#outcome", "data-kind")).toBe("broken");
    const position = Number(at![1]);
    expect(await text("#broken")).toBe(
      `broken: reading breaks at position ${position} (page ${Math.floor(position / 64)})`,
    );
    expect(await page.isVisible(`#strip .mark.breaks[data-position="${position}"]`)).toBe(true);
    console.log(`web demo, a recover that keeps a torn batch: ${h.outcome}`);

    // o, then r: the same disk recovered by pagelog's own functions.
    await page.keyboard.press("o");
    await page.keyboard.press("r");
    const fixed = await waitForScript(page, "p 3,s,p 4,w,c,r,o,r");
    expect(fixed.outcome).toMatch(RECOVERED);
    expect(await text("#running-on")).toBe("running on: pagelog's own functions");
  });

  it("flush every 1 batch and a recover that cuts whole, valid batches: BROKEN naming it, not an ordinary loss", async () => {
    const code = readFileSync(
      resolve(import.meta.dirname, "../fixtures/policies/recover-cuts-valid-batches.mjs"),
      "utf8",
    );
    await openDemo(page, chromium.built.url, "#seed=2&flush=1&script=p+4,c");
    await page.fill("#code", code);
    await click(page, "use-code");
    await page.waitForFunction(() => location.hash.includes("&code=") && !window.__pagelogDemo!.busy, null, {
      timeout: WAIT_MS,
    });
    await click(page, "restart");
    const h = await waitForScript(page, "p 4,c,r");
    expect(h.snapshot.flushEvery).toBe(1);
    expect(h.outcome).toMatch(
      /^restart after a power cut: BROKEN: your recover kept \d+ bytes of \S+, but bytes \d+ to \d+ are whole batches whose CRC matches/,
    );
    expect(await page.getAttribute("#outcome", "data-kind")).toBe("broken");
    expect(await text("#broken")).toMatch(/^broken: your recover kept/);
  });

  it("a recover that throws makes the restart THREW", async () => {
    await openDemo(page, chromium.built.url, "#seed=1&script=p+2,c");
    await page.fill("#code", 'export function recover() {\n  throw new Error("not written yet");\n}\n');
    await click(page, "use-code");
    await page.waitForFunction(() => location.hash.includes("&code=") && !window.__pagelogDemo!.busy, null, {
      timeout: WAIT_MS,
    });
    await click(page, "restart");
    const h = await waitForScript(page, "p 2,c,r");
    expect(h.outcome).toMatch(/^restart after a power cut: THREW: .*not written yet/);
    expect(await page.getAttribute("#outcome", "data-kind")).toBe("threw");
  });

  it("code that never finishes is refused after a trial in a worker, and the page stays usable", async () => {
    await openDemo(page, chromium.built.url, "#seed=1&script=p+2");
    // Loops for ever on any non-empty log without calling a helper: only a timeout can stop it.
    await page.fill(
      "#code",
      "export function recover(log) {\n  let p = 0;\n  while (p < log.length) p += 0;\n  return p;\n}\n",
    );
    await click(page, "use-code");
    await page.waitForFunction(
      () => /did not finish the course's cases within/.test(document.getElementById("code-error")!.textContent),
      null,
      { timeout: WAIT_MS },
    );
    expect(await text("#running-on")).toBe("running on: pagelog's own functions");
    expect(await page.evaluate(() => location.hash)).not.toContain("code=");
    // A lookup that never narrows is caught by the cases' own guard, without waiting.
    await page.fill(
      "#code",
      "export function lookup(index, target) {\n  for (;;) if (index[0].offset > target) return null;\n}\n",
    );
    await click(page, "use-code");
    await page.waitForFunction(
      () =>
        /your code loops: lookup: .*does the search range shrink/.test(
          document.getElementById("code-error")!.textContent,
        ),
      null,
      { timeout: WAIT_MS },
    );
    // A recover that never moves on, too: refused at once by its guard (data: FailedCase.loop), not the 5 s timeout.
    await page.fill(
      "#code",
      "export function recover(log, h) {\n  let p = 0;\n  while (p < log.length) h.readInt32(log, p + 8);\n  return p;\n}\n",
    );
    const started = Date.now();
    await click(page, "use-code");
    await page.waitForFunction(
      () => /^your code loops: recover: /.test(document.getElementById("code-error")!.textContent),
      null,
      { timeout: WAIT_MS },
    );
    console.log(`web demo: a recover that never moves on was refused in ${Date.now() - started} ms`);
    expect(await text("#running-on")).toBe("running on: pagelog's own functions");
    await click(page, "produce");
    const h = await waitForScript(page, "p 3");
    expect(h.message).toMatch(/^produced a batch of/);
  });

  it("Check my code runs the course's cases and a fuzz run in a Web Worker: the first failing case and its seed", async () => {
    await openDemo(page, chromium.built.url, "#seed=1");
    await page.fill("#code", RECOVER_NO_CRC);
    await click(page, "check-code");
    await page.waitForSelector('#check-result[data-state="failed"]', { timeout: WAIT_MS });
    const result = (await text("#check-result"))!;
    expect(result).toMatch(/^course cases: 1 failed, \d+ passed; the first:\n {2}recover: .+ → expected \d+, got \d+/);
    expect(result).toMatch(/\nfuzz: FAILED at schedule seed \d+\n/);
    expect(result).toMatch(/\nreplay: crashTest\(.*\{ seed: \d+, schedules: 1/);
    expect(await page.isHidden("#check-progress")).toBe(true);

    // pagelog's own recover (behind "Show pagelog's answer") passes both; the run shows its progress.
    await page.reload();
    await openDemo(page, chromium.built.url, "#seed=1");
    await click(page, "show-answer");
    await click(page, "use-answer");
    await page.evaluate(() => {
      const seen: string[] = [];
      (window as unknown as { seenResults: string[] }).seenResults = seen;
      const result = document.getElementById("check-result")!;
      const progress = document.getElementById("check-progress") as HTMLProgressElement;
      new MutationObserver(() => seen.push(`${progress.hidden ? "-" : progress.value} ${result.textContent}`)).observe(
        result,
        { childList: true, characterData: true, subtree: true },
      );
    });
    await click(page, "check-code");
    await page.waitForSelector('#check-result[data-state="passed"]', { timeout: WAIT_MS });
    expect(await text("#check-result")).toMatch(
      /^course cases: all \d+ passed\nfuzz: \d+ schedules, \d+ power cuts: no guarantee broken$/,
    );
    const seen = await page.evaluate(() => (window as unknown as { seenResults: string[] }).seenResults);
    expect(seen.some((line) => /^0\.\d+ .*\nfuzz: \d+ of \d+ schedules, \d+ power cuts…$/.test(line))).toBe(true);
  });

  /** Counts the Web Workers the page starts (the trial's and the checks' are the only ones). */
  const countWorkers = (p: Page) =>
    p.addInitScript(() => {
      const w = window as unknown as { __workers: number; Worker: typeof Worker };
      w.__workers = 0;
      const Base = w.Worker;
      w.Worker = class extends Base {
        constructor(...args: ConstructorParameters<typeof Worker>) {
          super(...args);
          w.__workers++;
        }
      };
    });
  /** What the link's code leaves when it runs: a count on its global, and the page's title. */
  const MARKS = `globalThis.__linkCodeRuns = (globalThis.__linkCodeRuns ?? 0) + 1;
if (typeof document !== "undefined") document.title = "the link's code ran";
`;
  const marks = (p: Page) =>
    p.evaluate(() => ({
      runs: (window as unknown as { __linkCodeRuns?: number }).__linkCodeRuns ?? 0,
      title: document.title,
      workers: (window as unknown as { __workers: number }).__workers,
    }));

  it("code in a link is shown in Your code and never runs by itself: not on load, not on a hash change", async () => {
    await countWorkers(page);
    const code = `${MARKS}${RECOVER_NO_CRC}`;
    const script = "p 3,s,p 4,w,c,r";
    await openDemo(
      page,
      chromium.built.url,
      `#seed=1&script=${encodeURIComponent(script)}&code=${encodeURIComponent(code)}`,
    );
    let h = await waitForScript(page, script);
    expect(await marks(page)).toEqual({ runs: 0, title: "pagelog demo: the page cache and a power cut", workers: 0 });
    expect(await page.inputValue("#code")).toBe(code);
    expect(await page.isVisible("#link-note")).toBe(true);
    expect(await text("#link-note")).toMatch(/has\s+not\s+run/);
    expect(await text("#running-on")).toBe("running on: pagelog's own functions");
    // The steps ran on pagelog's own functions: the restart recovered, as in Node without policies.
    expect(h.outcome).toBe((await runInNode(1, script)).messages.at(-1));
    expect(await page.evaluate(() => location.hash)).not.toContain("code=");

    // A link pasted into the same tab: the same.
    const other = `${MARKS}export function recover(log) {\n  return 0;\n}\n`;
    await page.evaluate(
      (hash) => (location.hash = hash),
      `#seed=16&script=${encodeURIComponent("p 3,c")}&code=${encodeURIComponent(other)}`,
    );
    h = await waitForScript(page, "p 3,c");
    expect(h.snapshot.config.seed).toBe(16);
    expect(await page.inputValue("#code")).toBe(other);
    expect(await marks(page)).toEqual({ runs: 0, title: "pagelog demo: the page cache and a power cut", workers: 0 });
    expect(await text("#running-on")).toBe("running on: pagelog's own functions");

    // Only the reader's press runs it: after its trial in a worker, in the page.
    await page.fill("#code", code);
    await page.evaluate(() => (location.hash = "#seed=1&script=p+3,s,p+4,w,c"));
    await waitForScript(page, "p 3,s,p 4,w,c");
    expect((await marks(page)).runs).toBe(0);
    await click(page, "use-code");
    await page.waitForFunction(() => location.hash.includes("&code=") && !window.__pagelogDemo!.busy, null, {
      timeout: WAIT_MS,
    });
    expect(await marks(page)).toEqual({ runs: 1, title: "the link's code ran", workers: 1 });
    expect(await page.isHidden("#link-note")).toBe(true);
    expect(await text("#running-on")).toBe("running on: your recover");
    await click(page, "restart");
    h = await waitForScript(page, "p 3,s,p 4,w,c,r");
    expect(h.outcome).toMatch(/^restart after a power cut: BROKEN: your recover kept/);
  });

  it("Your code starts as the exercise's starter (a wrong answer); pagelog's answer is behind a button", async () => {
    await openDemo(page, chromium.built.url, "#seed=1");
    const starter = await page.inputValue("#code");
    expect(starter).toMatch(/^function recover\(log, helpers\) \{$/m);
    expect(starter).toMatch(/readInt32/);
    expect(starter).toMatch(/crcMatches/);
    const starterCheck = checkPolicies(compilePolicies(starter).policies).recover;
    expect(starterCheck.given).toBe(true);
    expect(starterCheck.failed.length, "the starter must not pass the course's cases").toBeGreaterThan(0);
    expect(await page.isHidden("#answer")).toBe(true);
    expect(await page.isHidden("#link-note")).toBe(true);
    expect(await page.getAttribute("#show-answer", "aria-expanded")).toBe("false");

    await click(page, "show-answer");
    expect(await page.isVisible("#answer-code")).toBe(true);
    expect(await page.getAttribute("#show-answer", "aria-expanded")).toBe("true");
    const answer = (await text("#answer-code"))!;
    const answerCheck = checkPolicies(compilePolicies(answer).policies).recover;
    expect(answerCheck.failed).toEqual([]);
    expect(answerCheck.passed.length).toBeGreaterThan(0);
    expect(await page.inputValue("#code")).toBe(starter); // shown, not put in the box
    await click(page, "use-answer");
    expect(await page.inputValue("#code")).toBe(answer);
    await click(page, "show-answer");
    expect(await page.isHidden("#answer")).toBe(true);
  });

  it("at 360x740 the last step's line, the outcome and the top of the strip are on screen after Cut power and Restart, without scrolling", async () => {
    await page.setViewportSize({ width: 360, height: 740 });
    await openDemo(page, chromium.built.url, "#seed=1");
    const onScreen = () =>
      page.evaluate(() => {
        const inView = (id: string) => {
          const r = document.getElementById(id)!.getBoundingClientRect();
          return r.height > 0 && r.top >= 0 && r.bottom <= innerHeight;
        };
        // The strip is taller than the screen: its top, and its first row of bytes, must be on it.
        const strip = document.getElementById("strip")!.getBoundingClientRect();
        const stripStarts = strip.top >= 0 && strip.top + 2 * 22 <= innerHeight;
        return { scrollY, outcome: inView("outcome"), message: inView("message"), cut: inView("cut"), stripStarts };
      });
    const want = { scrollY: 0, outcome: true, message: true, cut: true, stripStarts: true };
    await click(page, "produce", 7);
    await click(page, "writeback");
    await click(page, "cut");
    let h = await waitForScript(page, "p 7,w,c");
    expect(h.outcome).toMatch(/^POWER CUT/);
    expect(await onScreen()).toEqual(want);
    await click(page, "restart");
    h = await waitForScript(page, "p 7,w,c,r");
    expect(h.outcome).toMatch(/^restart after a power cut: /);
    expect(await onScreen()).toEqual(want);
    await click(page, "produce", 3);
    await click(page, "cut");
    await waitForScript(page, "p 7,w,c,r,p 3,c");
    expect(await onScreen()).toEqual(want);

    // The longest outcome, BROKEN, after a run on a wrong recover; the page scrolled back to the top first.
    await page.evaluate(() => (location.hash = "#seed=1&script=p+3,s,p+4,w,c"));
    await waitForScript(page, "p 3,s,p 4,w,c");
    await page.fill("#code", RECOVER_NO_CRC);
    await click(page, "use-code");
    await page.waitForFunction(() => location.hash.includes("&code=") && !window.__pagelogDemo!.busy, null, {
      timeout: WAIT_MS,
    });
    await page.evaluate(() => scrollTo(0, 0));
    await click(page, "restart");
    h = await waitForScript(page, "p 3,s,p 4,w,c,r");
    expect(h.outcome).toMatch(/: BROKEN: /);
    expect((await onScreen()).outcome).toBe(true);
    expect((await onScreen()).stripStarts).toBe(true);
  });

  it("served by npm run demo:web, the page asks for nothing that is not there (no /favicon.ico 404)", async () => {
    const server = await servePage(new URL(".", chromium.built.url).pathname);
    try {
      const failed: string[] = [];
      page.on("response", (r) => {
        if (r.status() >= 400) failed.push(`${r.status()} ${r.url()}`);
      });
      page.on("requestfailed", (r) => failed.push(`failed ${r.url()}`));
      page.on("console", (m) => {
        if (m.type() === "error") failed.push(`console: ${m.text()}`);
      });
      await openDemo(page, server.url, "#seed=1&script=p+2");
      // The browser asks for an icon after the load: give it the time a reader would.
      await page.waitForLoadState("networkidle", { timeout: WAIT_MS });
      const asked = await page.evaluate(() => performance.getEntriesByType("resource").map((e) => e.name));
      expect(failed).toEqual([]);
      expect(asked.some((u) => u.endsWith("/app.js"))).toBe(true);
      // The checks' script is not loaded at start: only when the reader asks for a check, once.
      expect(asked.filter((u) => u.endsWith("/checks.js"))).toEqual([]);
      await click(page, "check-code");
      await page.waitForSelector('#check-result[data-state="failed"]', { timeout: WAIT_MS }); // the starter's recover
      await click(page, "check-code");
      await page.waitForSelector('#check-result[data-state="failed"]', { timeout: WAIT_MS });
      const later = await page.evaluate(() => performance.getEntriesByType("resource").map((e) => e.name));
      expect(later.filter((u) => u.endsWith("/checks.js"))).toHaveLength(1);
      expect(failed).toEqual([]);
    } finally {
      await server.stop();
    }
  });

  it("when checks.js cannot be loaded, the check and the trial say so, and a later check loads it", async () => {
    const server = await servePage(new URL(".", chromium.built.url).pathname);
    try {
      await page.route("**/checks.js", (route) => route.abort());
      await openDemo(page, server.url, "#seed=1");
      await click(page, "check-code");
      await page.waitForSelector('#check-result[data-state="failed"]', { timeout: WAIT_MS });
      expect(await text("#check-result")).toMatch(/^the check could not start: could not load checks\.js/);
      expect(await page.isHidden("#stop-check")).toBe(true);
      await click(page, "use-code");
      await page.waitForFunction(
        () => /^your code was not tried/.test(document.getElementById("code-error")!.textContent),
        null,
        { timeout: WAIT_MS },
      );
      expect(await text("#running-on")).toBe("running on: pagelog's own functions");
      await page.unroute("**/checks.js");
      await page.fill("#code", RECOVER_NO_CRC);
      await click(page, "check-code");
      await page.waitForSelector('#check-result[data-state="failed"]', { timeout: WAIT_MS });
      expect(await text("#check-result")).toMatch(/^course cases: 1 failed/);
    } finally {
      await server.stop();
    }
  });

  it("at 360 px wide nothing overflows sideways", async () => {
    await page.setViewportSize({ width: 360, height: 740 });
    await openDemo(page, chromium.built.url, "#seed=1&script=p+3,s,p+12,w,c,r");
    await page.fill("#code", RECOVER_NO_CRC);
    await click(page, "check-code");
    await page.waitForSelector('#check-result[data-state="failed"]', { timeout: WAIT_MS });
    const widths = await page.evaluate(() => ({
      scroll: document.documentElement.scrollWidth,
      client: document.documentElement.clientWidth,
    }));
    expect(widths.scroll).toBeLessThanOrEqual(widths.client);
    expect(widths.client).toBeLessThanOrEqual(360);
  });
});
