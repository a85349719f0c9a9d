// One hostile-files case on real files (a huge sparse file, a FIFO, a symlink), in its own process (started
// with --max-old-space-size=256): an abort (exit 134) or an out-of-memory kills only this case.
// argv: <bundled pagelog.mjs> <log directory> <partition>. Prints one JSON line.
import { createHash } from "node:crypto";
import { closeSync, lstatSync, openSync, readdirSync, readlinkSync, readSync } from "node:fs";
import { join } from "node:path";

const [bundle, root, partition] = process.argv.slice(2);
const { LogDir, FsStorage, PagelogError } = await import(bundle);
const READ_SLACK = 4 << 20;
const SAMPLE = 1 << 20;

/** Names, sizes, allocated blocks, and a hash of each file (its first and last MiB when large). */
function hashDir(dir, rel = "", out = []) {
  for (const name of readdirSync(join(dir, rel)).sort()) {
    const path = rel === "" ? name : `${rel}/${name}`;
    if (path === ".lock" || path === ".kafka_cleanshutdown") continue;
    const st = lstatSync(join(dir, path));
    if (st.isDirectory()) {
      out.push(`${path}/ dir`);
      hashDir(dir, path, out);
      continue;
    }
    if (st.isSymbolicLink()) {
      out.push(`${path} -> ${readlinkSync(join(dir, path))}`);
      continue;
    }
    if (!st.isFile()) {
      out.push(`${path} special ${st.mode}`);
      continue;
    }
    const h = createHash("sha256");
    const fd = openSync(join(dir, path), "r");
    try {
      const parts =
        st.size <= 2 * SAMPLE
          ? [[0, st.size]]
          : [
              [0, SAMPLE],
              [st.size - SAMPLE, SAMPLE],
            ];
      for (const [at, n] of parts) {
        const buf = Buffer.alloc(n);
        readSync(fd, buf, 0, n, at);
        h.update(buf);
      }
    } finally {
      closeSync(fd);
    }
    out.push(`${path} ${st.size} ${st.blocks} ${h.digest("hex").slice(0, 16)}`);
  }
  return out.join("\n");
}

const overReads = [];
function guard(storage) {
  const wrapFile = (file) =>
    new Proxy(file, {
      get(target, prop) {
        if (prop === "read") {
          return async (position, length) => {
            const size = await target.size();
            if (length > Math.max(0, size - position) + READ_SLACK)
              overReads.push({ path: target.path, position, length, size });
            return target.read(position, length);
          };
        }
        const v = Reflect.get(target, prop, target);
        return typeof v === "function" ? v.bind(target) : v;
      },
    });
  return new Proxy(storage, {
    get(target, prop) {
      if (prop === "open") return async (path, options) => wrapFile(await target.open(path, options));
      const v = Reflect.get(target, prop, target);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
}

const describe = (err) => ({
  name: err?.name,
  code: err?.code,
  pagelog: err instanceof PagelogError,
  message: String(err?.message ?? err).slice(0, 300),
});
const result = { records: [], error: undefined, phase: undefined, changedByRejectingOpen: undefined, overReads };
const before = hashDir(root);
const storage = guard(await FsStorage.open(root));
let dir;
try {
  result.phase = "LogDir.open";
  dir = await LogDir.open(storage, { checkpointIntervalMs: -1 });
  result.phase = "log()";
  const log = await dir.log(partition, { segmentBytes: 600, indexIntervalBytes: 100 });
  result.phase = "records()";
  for await (const r of log.records()) {
    result.records.push({
      offset: r.offset,
      key: r.key === null ? null : new TextDecoder().decode(r.key),
      value: r.value === null ? null : new TextDecoder().decode(r.value),
    });
  }
  result.startOffset = log.startOffset;
  result.endOffset = log.endOffset;
  result.phase = "done";
} catch (err) {
  result.error = describe(err);
  if (result.phase === "LogDir.open" || result.phase === "log()") {
    const after = hashDir(root);
    if (after !== before) result.changedByRejectingOpen = { before, after };
  }
}
try {
  await dir?.close();
} catch (err) {
  result.closeError = describe(err);
}
await storage.close().catch(() => undefined);
result.maxRssMiB = Math.round(process.resourceUsage().maxRSS / 1024);
process.stdout.write(`${JSON.stringify(result)}\n`);
