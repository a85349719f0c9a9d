/**
 * The strip's colours are the simulator's page map: a screenshot of the page (decoded by the
 * browser itself, on a canvas) is read at every byte's cell, each cell classified by the state
 * colours the page's stylesheet declares (and its legend shows), and compared with each byte's
 * state in the same run in Node (DemoSession's `segment.ranges`, from SimStorage's `inspect`).
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import type { ByteState, DemoSnapshot } from "../../src/demo/session.js";
import { describeInChromium } from "./support/chromium.js";
import { builtPageInChromium, hooks, openDemo } from "./support/demo-page.js";
import { runInNode } from "./support/node-demo.js";

const STATES: readonly ByteState[] = ["durable", "cached", "torn", "cut", "lost"];

/** Each byte's state as the run reports it; the ranges never overlap. */
function expectedStates(snapshot: DemoSnapshot): (ByteState | undefined)[] {
  const seg = snapshot.segment!;
  const states = new Array<ByteState | undefined>(seg.extent).fill(undefined);
  for (const r of seg.ranges)
    for (let b = r.start; b < r.end; b++) {
      expect(states[b], `byte ${b} in two ranges`).toBeUndefined();
      states[b] = r.state;
    }
  return states;
}

/**
 * Screenshots the whole page and classifies each byte cell (and each legend swatch) by the
 * state colour most of its pixels are nearest to; null when none is near.
 */
async function observedStates(
  page: Page,
): Promise<{ bytes: (string | null)[]; legend: Record<string, string | null> }> {
  const png = (await page.screenshot({ fullPage: true, animations: "disabled" })).toString("base64");
  return page.evaluate(
    async ({ png, states }) => {
      const img = new Image();
      img.src = `data:image/png;base64,${png}`;
      await img.decode();
      const canvas = document.createElement("canvas");
      canvas.width = img.width;
      canvas.height = img.height;
      const ctx = canvas.getContext("2d", { willReadFrequently: true })!;
      ctx.drawImage(img, 0, 0);
      const pixels = ctx.getImageData(0, 0, img.width, img.height).data;
      const css = getComputedStyle(document.documentElement);
      const keys = states.map((state) => {
        const hex = css.getPropertyValue(`--${state}`).trim();
        return { state, rgb: [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)) };
      });
      const classify = (el: Element): string | null => {
        const r = el.getBoundingClientRect();
        const counts = new Map<string, number>();
        const [x0, x1] = [Math.ceil(r.left + scrollX), Math.floor(r.right + scrollX)];
        const [y0, y1] = [Math.ceil(r.top + scrollY) + 1, Math.floor(r.bottom + scrollY) - 1];
        for (let y = y0; y < y1; y++)
          for (let x = x0; x < x1; x++) {
            const i = (y * img.width + x) * 4;
            for (const k of keys) {
              const d = Math.hypot(pixels[i]! - k.rgb[0]!, pixels[i + 1]! - k.rgb[1]!, pixels[i + 2]! - k.rgb[2]!);
              if (d < 24) counts.set(k.state, (counts.get(k.state) ?? 0) + 1);
            }
          }
        let best: string | null = null;
        for (const [state, n] of counts) if (best === null || n > counts.get(best)!) best = state;
        return best;
      };
      const bytes: (string | null)[] = [];
      for (const el of Array.from(document.querySelectorAll<HTMLElement>("#strip .b[data-b]")))
        bytes[Number(el.dataset.b)] = classify(el);
      const legend: Record<string, string | null> = {};
      for (const el of Array.from(document.querySelectorAll(".legend .b"))) legend[el.classList[1]!] = classify(el);
      return { bytes, legend };
    },
    { png, states: STATES },
  );
}

const repo = resolve(import.meta.dirname, "../..");

/** The hue (0-360) of `#rrggbb`. */
function hue(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255) as [number, number, number];
  const max = Math.max(r, g, b);
  const d = max - Math.min(r, g, b);
  if (d === 0) return 0;
  const h = max === r ? ((g - b) / d) % 6 : max === g ? (b - r) / d + 2 : (r - g) / d + 4;
  return (h * 60 + 360) % 360;
}

/** The colour names the README and the chapter use, as hue ranges (red wraps around 0). */
const NAMED: Record<string, (h: number) => boolean> = {
  green: (h) => h >= 90 && h <= 170,
  gold: (h) => h >= 35 && h <= 55,
  red: (h) => h >= 340 || h <= 30, // vermillion (Okabe-Ito's red) is 26
};

describe("the web demo's colours are the ones the README names", () => {
  it("on disk green, page cache only gold, torn and cut by recovery red: in web/style.css and the README's sentence", () => {
    const css = readFileSync(resolve(repo, "web/style.css"), "utf8");
    const colour = (state: string) => /^#[0-9a-f]{6}$/i.exec(new RegExp(`--${state}:\\s*([^;]+);`).exec(css)![1]!)![0];
    const readme = readFileSync(resolve(repo, "README.md"), "utf8").replace(/\s+/g, " ");
    const said =
      /(\w+) bytes are on disk, (\w+) bytes only in the page cache, (\w+) bytes torn or cut by recovery/.exec(readme);
    expect(said, "the README's sentence on the demo's colours").not.toBeNull();
    expect(readme).toMatch(/in the terminal and on the web page \(`npm run demo:web`\) alike: green bytes/);
    const [, durable, cached, tornOrCut] = said!;
    for (const [state, name] of [
      ["durable", durable],
      ["cached", cached],
      ["torn", tornOrCut],
      ["cut", tornOrCut],
    ] as const) {
      expect(Object.keys(NAMED), `the README's word for ${state}`).toContain(name);
      expect(
        NAMED[name!]!(hue(colour(state))),
        `--${state}: ${colour(state)} (hue ${hue(colour(state)).toFixed(0)}) is ${name}`,
      ).toBe(true);
    }
    const doc = readFileSync(resolve(repo, "docs/web-demo.md"), "utf8").replace(/\s+/g, " ");
    expect(doc).toMatch(/on disk is solid green/);
    expect(doc).toMatch(/page cache only solid gold/);
    expect(doc).not.toMatch(/\b(blue|orange)\b/);
  });
});

describeInChromium("the web demo's strip colours", (chromiumPath) => {
  const chromium = builtPageInChromium(chromiumPath);

  const seen = new Set<string>();

  for (const [seed, script, what] of [
    [1, "p 6,w", "on disk and in the page cache only (power on)"],
    [11, "p 3,s,p 4,w,c", "torn and lost in the cut (power off)"],
    [1, "p 3,s,p 4,w,c,r", "cut by recovery (after the restart)"],
  ] as const) {
    it(`seed ${seed}, "${script}": every byte's colour is its state, ${what}`, async () => {
      const page = await chromium.browser.context.newPage();
      try {
        await openDemo(page, chromium.built.url, `#seed=${seed}&script=${encodeURIComponent(script)}`);
        const node = await runInNode(seed, script);
        const shown = (await hooks(page)).snapshot;
        expect(shown).toEqual(node.snapshot);
        const expected = expectedStates(node.snapshot);
        for (const s of expected) if (s !== undefined) seen.add(s);
        const seg = node.snapshot.segment!;
        if (node.snapshot.power === "on") {
          // The simulator's dirty pages are exactly the pages with bytes in the page cache only.
          const cachedPages = new Set(
            expected.flatMap((s, b) => (s === "cached" ? [Math.floor(b / seg.pageSize)] : [])),
          );
          expect(cachedPages.size).toBe(seg.dirtyPages);
        }
        const observed = await observedStates(page);
        for (const state of STATES) expect(observed.legend[state], `legend swatch ${state}`).toBe(state);
        const wrong = expected.flatMap((s, b) =>
          observed.bytes[b] === s ? [] : [`byte ${b}: ${s} shown as ${observed.bytes[b]}`],
        );
        expect(wrong.slice(0, 10)).toEqual([]);
        expect(observed.bytes.length).toBe(seg.extent);
      } finally {
        await page.close();
      }
    });
  }

  it("the runs above showed all five states", () => {
    expect([...seen].sort()).toEqual([...STATES].sort());
  });
});
