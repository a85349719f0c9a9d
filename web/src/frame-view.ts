/**
 * Draws a frame: the strip, the status lines in the terminal demo's words (src/cli/demo/render.ts),
 * the last step's line and the outcome line. Also keeps the strip's hover line and the segment
 * state the test hooks read.
 */
import type { DemoSnapshot } from "../../src/demo/session.js";
import type { Frame } from "./controller.js";
import { $ } from "./dom.js";
import { describeByte, stripHtml, stripSummary } from "./strip-view.js";

export function flushLabel(flushEvery: number): string {
  return flushEvery === 0 ? "off" : `${flushEvery} batch${flushEvery === 1 ? "" : "es"}`;
}

/** Which kind of line the outcome is, for its style and for tests. */
export function outcomeKind(outcome: string): string {
  if (outcome.startsWith("POWER CUT")) return "lost";
  if (/: BROKEN: /.test(outcome)) return "broken";
  if (/: THREW: /.test(outcome)) return "threw";
  if (outcome.includes("clean shutdown")) return "clean";
  if (outcome.startsWith("restart after a power cut")) return "recovered";
  return "other";
}

export function drawFrame(frame: Frame): void {
  const s = frame.snapshot;
  const c = s.config;
  $("geometry").textContent =
    `seed ${c.seed} · ${c.pageSize}-byte pages, ${c.sectorSize}-byte sectors · flush every: ${flushLabel(s.flushEvery)}`;
  $("running-on").textContent = `running on: ${s.runningOn}`;
  drawSegment(s, frame.following);
  const status = $("status");
  status.dataset.power = s.power;
  status.innerHTML =
    s.power === "on"
      ? `log end offset <b id="end-offset">${s.endOffset}</b> · recovery point ${s.recoveryPoint} · dirty pages ${s.segment?.dirtyPages ?? 0} · acknowledged records lost so far: ${s.lostTotal}`
      : `<b>POWER OFF</b> · broker down · acknowledged up to offset ${s.acknowledged - 1} · the log needs recovery: restart (r)`;
  $("last-recovery").textContent = `last recovery: ${s.lastRecovery}`;
  // As the terminal's frame: where reading breaks in the bytes a reader's recover kept.
  const broken = $("broken");
  const b = s.broken;
  broken.hidden = b === undefined;
  broken.textContent =
    b === undefined
      ? ""
      : b.position === undefined
        ? `${b.kind}: ${b.message}`
        : `${b.kind}: reading breaks at position ${b.position} (page ${Math.floor(b.position / c.pageSize)})`;
  $("message").textContent = `> ${frame.message}`;
  const outcome = $("outcome");
  outcome.textContent = frame.outcome ?? "no power cut or restart yet";
  outcome.dataset.kind = frame.outcome === undefined ? "none" : outcomeKind(frame.outcome);
  document.body.dataset.power = s.power;
}

let shown: DemoSnapshot["segment"];

function drawSegment(s: DemoSnapshot, following: boolean): void {
  const seg = s.segment;
  shown = seg;
  const strip = $("strip");
  if (seg === undefined) {
    $("segment-title").textContent = "(no segment)";
    strip.innerHTML = "";
    strip.setAttribute("aria-label", "no segment");
    return;
  }
  $("segment-title").textContent =
    `${seg.path} · segment ${seg.segmentNumber} of ${seg.segmentCount} · ${seg.size} bytes, size on disk ${seg.durableSize}`;
  drawPicker(s, following);
  strip.innerHTML = stripHtml(seg, s.broken?.position);
  strip.setAttribute("aria-label", stripSummary(seg));
  $("hover").textContent = "hover over (or tap) a byte to see its page, its batch and its state";
}

/** The segment picker, once the log has rolled: the active segment (followed as it rolls) or an older one. */
function drawPicker(s: DemoSnapshot, following: boolean): void {
  const seg = s.segment!;
  const picker = $<HTMLSelectElement>("segment-picker");
  $("picker-label").hidden = s.power !== "on" || seg.segmentCount < 2;
  let options = `<option value="">the active one (${seg.segmentCount})</option>`;
  for (let n = 1; n < seg.segmentCount; n++) options += `<option value="${n}">segment ${n}</option>`;
  picker.innerHTML = options;
  picker.value = following ? "" : String(seg.segmentNumber);
}

/** Hovering or tapping a byte shows its page, batch and state on the line under the strip. */
export function wireHover(): void {
  const strip = $("strip");
  const show = (event: Event) => {
    const b = (event.target as HTMLElement).dataset?.b;
    if (b !== undefined && shown !== undefined) $("hover").textContent = describeByte(shown, Number(b));
  };
  strip.addEventListener("pointerover", show);
  strip.addEventListener("click", show);
}
