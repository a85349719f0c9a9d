/**
 * `npm run demo:web`: builds the web demo and serves it on localhost (port from PORT, else a
 * free one). Only the built folder's own files are served, looked up by exact name, so no path
 * can reach anything else. It stops with whoever started it (see `exitWithParent`).
 *
 *   node web/serve.mjs [outdir]     (default web/dist; a folder holding anything else is refused)
 */
import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createServer } from "node:http";
import { join } from "node:path";
import { buildWeb, FILES } from "./build.mjs";

const TYPES = {
  html: "text/html; charset=utf-8",
  css: "text/css; charset=utf-8",
  js: "text/javascript; charset=utf-8",
};

/** Serves the files of a built folder on 127.0.0.1:`port` (0: a free one); resolves with the server's URL. */
async function serveDir(outdir, port = 0) {
  const files = new Map();
  for (const name of FILES) files.set(`/${name}`, await readFile(join(outdir, name)));
  files.set("/", files.get("/index.html"));
  const server = createServer((req, res) => {
    const path = pathOf(req.url);
    if (path === undefined) {
      // `GET http://[ HTTP/1.1` and the like: no URL at all. One bad request must not stop the server.
      res.writeHead(400, { "content-type": "text/plain; charset=utf-8" }).end("bad request\n");
      return;
    }
    const body = req.method === "GET" || req.method === "HEAD" ? files.get(path) : undefined;
    if (body === undefined) {
      res.writeHead(404, { "content-type": "text/plain; charset=utf-8" }).end("not found\n");
      return;
    }
    const ext = path === "/" ? "html" : path.slice(path.lastIndexOf(".") + 1);
    res.writeHead(200, { "content-type": TYPES[ext], "cache-control": "no-store" });
    res.end(req.method === "HEAD" ? undefined : body);
  });
  await new Promise((ok, fail) => server.once("error", fail).listen(port, "127.0.0.1", ok));
  return { server, url: `http://127.0.0.1:${server.address().port}/` };
}

/** The request target's path, or undefined when it is no URL. */
function pathOf(target) {
  try {
    return new URL(target ?? "/", "http://localhost").pathname;
  } catch {
    return undefined;
  }
}

/** The parent pid of process `pid`, from Linux's /proc; undefined elsewhere or once it is gone. */
function parentOf(pid) {
  try {
    // "pid (comm) state ppid …": comm may hold spaces and parentheses, so read after the last ')'.
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
  } catch {
    return undefined;
  }
}

/** Whether process `pid` is running (a zombie, dead but not yet reaped, is not). */
function alive(pid) {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return err.code === "EPERM";
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return true; // no /proc: kill(pid, 0) said it exists
  }
}

/**
 * Closes the server and exits when whoever started it is gone. `npm run demo:web` runs this
 * through `sh -c`: a SIGTERM, SIGINT or SIGKILL sent to npm alone (not to the terminal's whole
 * process group, as Ctrl-C does) ends npm and perhaps the shell, never this process, which would
 * be left serving with no parent. So it watches its parent (the shell, or whoever ran it) and,
 * under npm, its grandparent (npm itself), and stops when either is gone: its parent pid changes
 * when the parent dies, and the grandparent is looked at directly.
 */
function exitWithParent(server) {
  const parent = process.ppid;
  const watched = [parent];
  const grandparent = process.env.npm_lifecycle_event === undefined ? undefined : parentOf(parent);
  if (grandparent !== undefined && grandparent > 1) watched.push(grandparent);
  const timer = setInterval(() => {
    if (process.ppid === parent && watched.every(alive)) return;
    clearInterval(timer);
    server.closeAllConnections();
    server.close(() => process.exit(0));
    setTimeout(() => process.exit(0), 500).unref();
  }, 200);
  timer.unref();
}

const { outdir, jsGzipBytes } = await buildWeb(process.argv[2]).catch((err) => {
  console.error(`web/serve.mjs: ${err.message}`);
  process.exit(2);
});
const { server, url } = await serveDir(outdir, Number(process.env.PORT ?? 0));
exitWithParent(server);
console.log(
  `pagelog web demo (app.js ${(jsGzipBytes / 1024).toFixed(1)} KB gzipped; checks.js loads on the first check) at ${url}`,
);
console.log("Ctrl-C stops it.");
