/**
 * The strip of one segment, as HTML: a block per page (its first byte's position above it, a tick
 * at its left edge), a cell per byte coloured by its state, and under the cells a mark at each
 * batch start labelled with its base offset ("torn" for the first batch recovery will not keep),
 * as the terminal demo's strip (src/demo/strip.ts) draws them. Every byte is its own cell so
 * hovering one can say what it is, and so a test can find each byte's place on the screen.
 */
import type { BatchMark, ByteState, SegmentView } from "../../src/demo/session.js";

/** Worst first, as in the terminal strip: a byte in two ranges shows the worse one. */
const PRIORITY: Record<ByteState, number> = { torn: 5, cut: 4, lost: 3, cached: 2, durable: 1 };

/** The legend's words for each state (the terminal demo's legend). */
export const STATE_WORDS: Record<ByteState, string> = {
  durable: "on disk",
  cached: "page cache only",
  torn: "torn / recovery cuts it",
  cut: "cut by recovery",
  lost: "lost in the cut",
};

/** Each byte's state, `undefined` past the extent. */
export function byteStates(view: SegmentView): (ByteState | undefined)[] {
  const states = new Array<ByteState | undefined>(view.extent).fill(undefined);
  for (const r of view.ranges)
    for (let b = r.start; b < Math.min(r.end, view.extent); b++) {
      const s = states[b];
      if (s === undefined || PRIORITY[r.state] > PRIORITY[s]) states[b] = r.state;
    }
  return states;
}

/**
 * `breaksAt`: where reading fails in bytes a reader's `recover` kept (a "broken" restart): marked
 * "breaks" in place of any batch mark there.
 */
export function stripHtml(view: SegmentView, breaksAt?: number): string {
  const states = byteStates(view);
  const pageSize = view.pageSize;
  const pages = Math.max(1, Math.ceil(view.extent / pageSize));
  let html = "";
  for (let p = 0; p < pages; p++) {
    const first = p * pageSize;
    let cells = "";
    for (let b = first; b < first + pageSize; b++) {
      const s = states[b];
      cells += s === undefined ? `<i class="b empty"></i>` : `<i class="b ${s}" data-b="${b}"></i>`;
    }
    const inPage = (position: number) => position >= first && position < first + pageSize;
    const marks = view.batches
      .filter((m) => inPage(m.position) && m.position !== breaksAt)
      .map((m) => ({
        position: m.position,
        label: m.valid ? String(m.baseOffset) : "torn",
        kind: m.valid ? "" : " bad",
      }));
    if (breaksAt !== undefined && inPage(breaksAt)) {
      marks.push({ position: breaksAt, label: "breaks", kind: " breaks" });
      marks.sort((a, b) => a.position - b.position);
    }
    let marksHtml = "";
    for (const [i, mark] of marks.entries()) {
      const x = mark.position - first;
      const room = (marks[i + 1]?.position ?? first + pageSize) - mark.position;
      marksHtml += `<span class="mark${mark.kind}" style="--x:${x};--w:${room}" data-position="${mark.position}">${mark.label}</span>`;
    }
    html += `<div class="page"><div class="pos">${first}</div><div class="cells">${cells}</div><div class="marks">${marksHtml}</div></div>`;
  }
  return html;
}

/** One line for the strip's accessible name: how many bytes are in each state. */
export function stripSummary(view: SegmentView): string {
  const counts = new Map<ByteState, number>();
  for (const s of byteStates(view)) if (s !== undefined) counts.set(s, (counts.get(s) ?? 0) + 1);
  const parts = [...counts].map(([s, n]) => `${n} ${STATE_WORDS[s]}`);
  return `${view.path}: ${view.extent} bytes${parts.length > 0 ? `: ${parts.join(", ")}` : ""}`;
}

/** What hovering byte `b` shows: its page, its batch and its state. */
export function describeByte(view: SegmentView, b: number): string {
  const state = byteStates(view)[b];
  const page = Math.floor(b / view.pageSize);
  const pageText = `page ${page} (bytes ${page * view.pageSize}-${(page + 1) * view.pageSize - 1})`;
  return `byte ${b} · ${pageText} · ${batchText(view.batches, b, view.size)} · ${state === undefined ? "empty" : STATE_WORDS[state]}`;
}

function batchText(marks: readonly BatchMark[], b: number, size: number): string {
  if (b >= size) return `past the end of the file (${size} bytes)`;
  let i = -1;
  for (let k = 0; k < marks.length; k++) if (marks[k]!.position <= b) i = k;
  const mark = marks[i];
  if (mark === undefined) return "no batch";
  const end = Math.min(marks[i + 1]?.position ?? size, size) - 1;
  return mark.valid
    ? `batch at offset ${mark.baseOffset} (bytes ${mark.position}-${end})`
    : `not a valid batch: recovery keeps nothing from byte ${mark.position}`;
}
