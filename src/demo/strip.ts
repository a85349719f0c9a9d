/**
 * The strip of cells that draws one segment, as the chapter's demo does: each cell a few bytes
 * (a sixteenth of a page), coloured by the worst state of its bytes; a tick at every page
 * boundary; under each row, a mark where each batch starts, labelled with its base offset.
 *
 *      0 ┆████████████████┆██████▒▒▒▒▒▒▒▒▒▒┆▒▒▒▒▒▒▒▒XXXXXXXX┆
 *         ╵0                    ╵2         ╵torn
 */
import { ANSI, type Style } from "../text/paint.js";
import type { BatchMark, ByteState, SegmentView } from "./session.js";

/** Cells per page when the page size allows it: 4-byte cells for the demo's 64-byte pages. */
const CELLS_PER_PAGE = 16;
/** Pages per row when the terminal width is unknown (fits 80 columns with 16 cells per page). */
const DEFAULT_PAGES_PER_ROW = 4;
const MAX_PAGES_PER_ROW = 8;
/** Width of the byte-position column on the left. */
const POSITION_WIDTH = 6;

type CellState = ByteState | "empty";

/** Worst first: a cell with any red byte is red, then gold, then green. */
const PRIORITY: Record<CellState, number> = { torn: 5, cut: 4, lost: 3, cached: 2, durable: 1, empty: 0 };

const GLYPHS: Record<CellState, { plain: string; color: string; codes: string[] }> = {
  durable: { plain: "█", color: "█", codes: [ANSI.green] },
  cached: { plain: "▒", color: "█", codes: [ANSI.gold] },
  torn: { plain: "X", color: "█", codes: [ANSI.red] },
  cut: { plain: "x", color: "░", codes: [ANSI.red] },
  lost: { plain: "·", color: "·", codes: [ANSI.red] },
  empty: { plain: " ", color: " ", codes: [] },
};
const TICK = "┆";
const MARK = "╵";

export function legend(style: Style): string {
  const g = (s: CellState) => style.paint(style.color ? GLYPHS[s].color : GLYPHS[s].plain, ...GLYPHS[s].codes);
  return `${g("durable")} on disk  ${g("cached")} page cache only  ${g("torn")} torn / recovery cuts it  ${g("cut")} cut by recovery  ${g("lost")} lost in the cut  ${TICK} page  ${MARK}N batch at offset N`;
}

/** How many pages fit a terminal `columns` wide. */
export function pagesPerRow(columns: number | undefined, pageSize: number): number {
  if (columns === undefined) return DEFAULT_PAGES_PER_ROW;
  const cellsPerPage = Math.ceil(pageSize / Math.max(1, Math.floor(pageSize / CELLS_PER_PAGE)));
  return Math.max(1, Math.min(MAX_PAGES_PER_ROW, Math.floor((columns - POSITION_WIDTH - 2) / (cellsPerPage + 1))));
}

export function drawStrip(view: SegmentView, style: Style, rowPages = DEFAULT_PAGES_PER_ROW): string[] {
  const pageSize = view.pageSize;
  const cellBytes = Math.max(1, Math.floor(pageSize / CELLS_PER_PAGE));
  const cellsPerPage = Math.ceil(pageSize / cellBytes);
  const pages = Math.max(1, Math.ceil(view.extent / pageSize));
  const stateAt = byteStates(view);
  const lines: string[] = [];
  for (let firstPage = 0; firstPage < pages; firstPage += rowPages) {
    const rowPagesHere = Math.min(rowPages, pages - firstPage);
    let cells = "";
    const markCols: Array<{ col: number; mark: BatchMark }> = [];
    let col = 0;
    let run: { state: CellState; text: string } | undefined;
    const flush = () => {
      if (run === undefined) return;
      cells += style.paint(run.text, ...GLYPHS[run.state].codes);
      run = undefined;
    };
    for (let p = firstPage; p < firstPage + rowPagesHere; p++) {
      flush();
      cells += style.paint(TICK, ANSI.dim);
      col++;
      for (let c = 0; c < cellsPerPage; c++) {
        const start = p * pageSize + c * cellBytes;
        const end = Math.min((p + 1) * pageSize, start + cellBytes);
        let state: CellState = "empty";
        for (let b = start; b < end; b++) {
          const s = stateAt(b);
          if (PRIORITY[s] > PRIORITY[state]) state = s;
        }
        const glyph = style.color ? GLYPHS[state].color : GLYPHS[state].plain;
        if (run !== undefined && run.state === state) run.text += glyph;
        else {
          flush();
          run = { state, text: glyph };
        }
        for (const mark of view.batches)
          if (mark.position >= start && mark.position < end) markCols.push({ col, mark });
        col++;
      }
    }
    flush();
    cells += style.paint(TICK, ANSI.dim);
    lines.push(`${String(firstPage * pageSize).padStart(POSITION_WIDTH)} ${cells}`);
    lines.push((" ".repeat(POSITION_WIDTH + 1) + marksLine(markCols, col + 1, style)).trimEnd());
  }
  return lines;
}

/** The row under the cells: a mark per batch start, its base offset after it where it fits. */
function marksLine(marks: Array<{ col: number; mark: BatchMark }>, width: number, style: Style): string {
  const chars: string[] = new Array<string>(width).fill(" ");
  const codes: Array<string[] | undefined> = new Array<string[] | undefined>(width).fill(undefined);
  for (const [i, { col, mark }] of marks.entries()) {
    chars[col] = MARK;
    codes[col] = mark.valid ? [ANSI.white, ANSI.bold] : [ANSI.red, ANSI.bold];
    const label = mark.valid ? String(mark.baseOffset) : "torn";
    const limit = Math.min(width, marks[i + 1]?.col ?? width);
    for (let k = 0; k < label.length && col + 1 + k < limit; k++) {
      chars[col + 1 + k] = label[k]!;
      codes[col + 1 + k] = mark.valid ? undefined : [ANSI.red];
    }
  }
  let out = "";
  for (let i = 0; i < width; i++) out += codes[i] === undefined ? chars[i] : style.paint(chars[i]!, ...codes[i]!);
  return out.trimEnd();
}

function byteStates(view: SegmentView): (byte: number) => CellState {
  // Ranges are sorted and few: a linear search per byte is fine for a demo-sized segment.
  return (byte) => {
    let found: CellState = "empty";
    for (const r of view.ranges)
      if (byte >= r.start && byte < r.end && PRIORITY[r.state] > PRIORITY[found]) found = r.state;
    return found;
  };
}
