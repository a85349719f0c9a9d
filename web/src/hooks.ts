/**
 * Test hooks (docs/web-demo.md): what the browser tests read instead of guessing from pixels
 * or waiting on timers. `window.__pagelogDemo` holds the last frame's `DemoSnapshot` (the
 * simulator's view: `segment.ranges` is each byte's state), the outcome and message lines, the
 * run as a script, and `idle()`; `#demo` carries `data-ready`, `data-busy` and `data-frames`.
 */
import type { DemoSnapshot } from "../../src/demo/session.js";
import type { DemoController, Frame } from "./controller.js";
import { $ } from "./dom.js";
import { formatScript } from "./url-state.js";

export interface PagelogDemoHooks {
  snapshot: DemoSnapshot | undefined;
  message: string | undefined;
  outcome: string | undefined;
  /** The steps taken, in `pagelog demo --script` syntax. */
  script: string;
  busy: boolean;
  ready: boolean;
  frames: number;
  /** Milliseconds from navigation start to the first frame drawn (performance.now()). */
  firstRenderMs: number | undefined;
  /** Resolves when every queued step has run and been drawn. */
  idle(): Promise<void>;
}

declare global {
  interface Window {
    __pagelogDemo?: PagelogDemoHooks;
  }
}

export function exposeHooks(): {
  frame(frame: Frame, busy: boolean): void;
  ready(controller: DemoController): void;
} {
  let controller: DemoController | undefined;
  const hooks: PagelogDemoHooks = {
    snapshot: undefined,
    message: undefined,
    outcome: undefined,
    script: "",
    busy: true,
    ready: false,
    frames: 0,
    firstRenderMs: undefined,
    idle: async () => controller?.idle(),
  };
  window.__pagelogDemo = hooks;
  const main = $("demo");
  const mark = () => {
    main.dataset.busy = hooks.busy ? "1" : "0";
    main.dataset.ready = hooks.ready ? "1" : "0";
    main.dataset.frames = String(hooks.frames);
  };
  return {
    frame(frame, busy) {
      hooks.snapshot = frame.snapshot;
      hooks.message = frame.message;
      hooks.outcome = frame.outcome;
      hooks.script = formatScript(frame.state.steps);
      hooks.busy = busy;
      hooks.frames++;
      hooks.firstRenderMs ??= performance.now();
      mark();
    },
    ready(c) {
      controller = c;
      hooks.ready = true;
      hooks.busy = c.busy;
      mark();
    },
  };
}
