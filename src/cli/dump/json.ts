/**
 * `pagelog dump --json`: one JSON document, `{ "files": [...] }`, written as the files are read
 * (a file's batches or entries are never held together). An index entry followed by identical
 * ones carries `"repeats": n`: the n slots after it hold the same bytes with the same finding.
 */
import type { IndexRun, IndexWalk } from "../../inspect/index-check.js";
import type { Output } from "../terminal/output.js";
import type {
  DumpedBatch,
  DumpedIndexStart,
  DumpedLogEnd,
  DumpedLogStart,
  DumpSink,
} from "../../inspect/dump-model.js";

/** `value` as indented JSON, every line but the first indented by `depth` levels. */
function json(value: unknown, depth: number): string {
  return JSON.stringify(value, null, 2).replace(/\n/g, `\n${"  ".repeat(depth)}`);
}

/** The opening of a file's object: its fields up to the array that follows, then `"name": [`. */
function opening(fields: Record<string, unknown>, array: string): string {
  const lines = Object.entries(fields).map(([k, v]) => `      ${JSON.stringify(k)}: ${json(v, 3)},`);
  return `    {\n${lines.join("\n")}\n      ${JSON.stringify(array)}: [`;
}

export function jsonSink(out: Output): DumpSink & { end(): void } {
  let files = 0;
  let items = 0;
  const item = (value: unknown) => {
    out.write(`${items++ === 0 ? "\n" : ",\n"}        ${json(value, 4)}`);
  };
  const open = (fields: Record<string, unknown>, array: string) => {
    out.write(`${files++ === 0 ? '{\n  "files": [\n' : ",\n"}${opening(fields, array)}`);
    items = 0;
  };
  const close = (fields: Record<string, unknown>) => {
    const rest = Object.entries(fields).map(([k, v]) => `      ${JSON.stringify(k)}: ${json(v, 3)}`);
    out.write(`${items === 0 ? "]" : "\n      ]"},\n${rest.join(",\n")}\n    }`);
  };
  return {
    logStart(f: DumpedLogStart) {
      open({ kind: f.kind, path: f.path, baseOffset: f.baseOffset, size: f.size }, "batches");
    },
    async batch(b: DumpedBatch) {
      item(b);
      await out.drain();
    },
    logEnd(end: DumpedLogEnd) {
      close({ trailing: end.trailing });
    },
    indexStart(f: DumpedIndexStart) {
      open({ kind: f.kind, path: f.path, size: f.size, checkedAgainst: f.checkedAgainst }, "entries");
    },
    async entry(e: IndexRun) {
      const { repeats, ...entry } = e;
      item(repeats === 0 ? entry : { ...entry, repeats });
      await out.drain();
    },
    indexEnd(end: IndexWalk) {
      close({ fileProblems: end.fileProblems });
    },
    end() {
      out.write(files === 0 ? '{\n  "files": []\n}\n' : "\n  ]\n}\n");
    },
  };
}
