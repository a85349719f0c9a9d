/** One frame of the demo: a title, the strip of the active segment, a legend and the status lines. */
import { ANSI, type Style } from "../text/paint.js";
import { plural } from "../text/plural.js";
import type { DemoSnapshot } from "./session.js";
import { drawStrip, legend } from "./strip.js";

interface FrameOptions {
  readonly style: Style;
  readonly pagesPerRow: number;
  /** What the last step did (one line). */
  readonly message?: string;
}

export function flushLabel(flushEvery: number): string {
  return flushEvery === 0 ? "off" : plural(flushEvery, "batch");
}

export function renderFrame(s: DemoSnapshot, options: FrameOptions): string {
  const { style } = options;
  const c = s.config;
  const lines: string[] = [];
  lines.push(
    `${style.paint("pagelog demo", ANSI.bold)} · seed ${c.seed} · ${c.pageSize}-byte pages, ${c.sectorSize}-byte sectors · flush every: ${flushLabel(s.flushEvery)}`,
  );
  if (s.segment === undefined) lines.push("(no segment)");
  else {
    const seg = s.segment;
    lines.push(
      `${seg.path} · segment ${seg.segmentNumber} of ${seg.segmentCount} · ${plural(seg.size, "byte")}, size on disk ${seg.durableSize}`,
    );
    lines.push(...drawStrip(seg, style, options.pagesPerRow));
  }
  lines.push(legend(style));
  if (s.power === "on") {
    lines.push(
      `log end offset ${s.endOffset} · recovery point ${s.recoveryPoint} · dirty pages ${s.segment?.dirtyPages ?? 0} · acknowledged records lost so far: ${s.lostTotal}`,
    );
  } else {
    lines.push(
      style.paint(
        `POWER OFF · broker down · acknowledged up to offset ${s.acknowledged - 1} · the log needs recovery: restart (r)`,
        ANSI.red,
        ANSI.bold,
      ),
    );
  }
  lines.push(`last recovery: ${s.lastRecovery}`);
  lines.push(`running on: ${s.runningOn}`);
  if (s.broken !== undefined)
    lines.push(
      style.paint(
        s.broken.position === undefined
          ? `${s.broken.kind}: ${s.broken.message}`
          : `${s.broken.kind}: reading breaks at position ${s.broken.position} (page ${Math.floor(s.broken.position / s.config.pageSize)})`,
        ANSI.red,
        ANSI.bold,
      ),
    );
  if (options.message !== undefined) lines.push(`> ${options.message}`);
  return lines.join("\n") + "\n";
}
