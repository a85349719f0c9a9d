/**
 * The demo at a terminal: raw-mode stdin, one key per step, the frame redrawn after each.
 * Keys: p produce, c cut power, r restart, w write back, f flush every, s flush now, o pagelog's own
 * functions (after --policies), q quit. On a `TERM=dumb` terminal (one that cannot move the cursor)
 * the frames follow each other as plain text, with no clear-screen or cursor codes.
 */
import type { CliIo } from "../terminal/io.js";
import { renderFrame } from "../../demo/render.js";
import type { ScriptStep } from "../../demo/script.js";
import { applyStep } from "../../demo/script.js";
import type { DemoSession } from "../../demo/session.js";
import type { Style } from "../terminal/style.js";

const CLEAR = "\x1b[H\x1b[2J";
const HIDE_CURSOR = "\x1b[?25l";
const SHOW_CURSOR = "\x1b[?25h";
const CTRL_C = "\u0003";
const CTRL_D = "\u0004";
const KEYS_HELP =
  "keys: p produce · c cut power · r restart · w OS write-back · f flush every · s flush now · o pagelog's own functions · q quit";

const KEY_STEPS: Record<string, ScriptStep> = {
  p: { kind: "produce", count: 1 },
  c: { kind: "cut" },
  r: { kind: "restart" },
  w: { kind: "writeback", pages: undefined },
  f: { kind: "flush-every", every: undefined },
  s: { kind: "flush" },
  o: { kind: "own" },
};

export async function runInteractive(
  session: DemoSession,
  io: CliIo,
  style: Style,
  pagesPerRow: number,
): Promise<number> {
  const stdin = io.stdin!;
  const codes = io.env.TERM !== "dumb";
  let frames = 0;
  const draw = async (message: string) => {
    const before = codes ? CLEAR : frames++ === 0 ? "" : "\n";
    io.stdout.write(before + renderFrame(await session.snapshot(), { style, pagesPerRow, message }) + KEYS_HELP + "\n");
  };
  stdin.setRawMode?.(true);
  if (codes) io.stdout.write(HIDE_CURSOR);
  await draw("press p to produce a batch");
  return new Promise<number>((resolve) => {
    let queue = Promise.resolve();
    let done = false;
    const finish = (code: number) => {
      if (done) return;
      done = true;
      stdin.off("data", onData);
      stdin.off("end", onEnd);
      stdin.setRawMode?.(false);
      stdin.pause();
      if (codes) io.stdout.write(SHOW_CURSOR);
      resolve(code);
    };
    const handle = async (key: string) => {
      if (done) return;
      if (key === "q" || key === CTRL_C || key === CTRL_D) {
        await session.close().catch(() => undefined);
        finish(0);
        return;
      }
      const step = KEY_STEPS[key.toLowerCase()];
      try {
        await draw(step === undefined ? `unknown key ${JSON.stringify(key)}` : await applyStep(session, step));
      } catch (err) {
        await draw(`error: ${(err as Error).message.split("\n")[0]}`).catch(() => undefined);
      }
    };
    const onData = (chunk: string | Buffer) => {
      for (const key of typeof chunk === "string" ? chunk : chunk.toString("utf8"))
        queue = queue.then(() => handle(key));
    };
    const onEnd = () => void queue.then(() => finish(0));
    stdin.on("data", onData);
    stdin.on("end", onEnd);
    stdin.resume();
  });
}
