/**
 * Drives one `DemoSession` (the same one `pagelog demo` drives in a terminal) for the page: steps
 * run one at a time, in the order they were asked for; after each, the page gets a new frame.
 * Every step taken is kept, so the URL can replay the run and a change of seed, flush policy at
 * the start, or policies starts a new session that replays the same steps.
 */
import type { CoursePolicies, PolicyName } from "../../src/course.js";
import { applyStep, type ScriptStep } from "../../src/demo/script.js";
import { type DemoConfig, type DemoSnapshot, DemoSession } from "../../src/demo/session.js";
import type { PageState } from "./url-state.js";

/** The chapter's geometry, as `pagelog demo` has it by default: 64-byte pages, 16-byte sectors. */
export const PAGE_SIZE = 64;
export const SECTOR_SIZE = 16;
export const SEGMENT_BYTES = 1024;

export interface Frame {
  readonly snapshot: DemoSnapshot;
  /** What the last step did, in the terminal demo's words. */
  readonly message: string;
  /** The last power cut's or restart's line: lost, recovered, clean, broken or threw. */
  readonly outcome: string | undefined;
  readonly state: PageState;
  /** True when the picture follows the active segment (no older one picked). */
  readonly following: boolean;
}

/** Policies pasted into "your code", compiled. */
export interface ActivePolicies {
  readonly policies: Partial<CoursePolicies>;
  readonly names: readonly PolicyName[];
}

export class DemoController {
  #session: DemoSession;
  #state: PageState;
  #policies: ActivePolicies | undefined;
  #queue: Promise<void> = Promise.resolve();
  #pending = 0;
  #message = "press p to produce a batch";
  #outcome: string | undefined;
  /** The segment the picture shows (1-based), or undefined to follow the active one. */
  #segment: number | undefined;
  readonly #onFrame: (frame: Frame) => void;

  private constructor(session: DemoSession, state: PageState, onFrame: (frame: Frame) => void) {
    this.#session = session;
    this.#state = state;
    this.#onFrame = onFrame;
  }

  /** Starts a session for `state` and replays its steps; the first frame follows. */
  static async start(
    state: PageState,
    policies: ActivePolicies | undefined,
    onFrame: (frame: Frame) => void,
  ): Promise<DemoController> {
    const controller = new DemoController(await DemoSession.start(configFor(state, policies)), state, onFrame);
    controller.#policies = policies;
    await controller.#replay(state.steps);
    await controller.#emit();
    return controller;
  }

  get policies(): ActivePolicies | undefined {
    return this.#policies;
  }

  get state(): PageState {
    return this.#state;
  }

  /** True while a step is queued or running. */
  get busy(): boolean {
    return this.#pending > 0;
  }

  get powerIsOff(): boolean {
    return this.#session.powerIsOff;
  }

  /** Queues a step; resolves once it ran and its frame was drawn. */
  step(step: ScriptStep): Promise<void> {
    return this.#enqueue(async () => {
      await this.#run(step);
      this.#state = { ...this.#state, steps: [...this.#state.steps, step] };
    });
  }

  /** A new session: another seed, start policy or policies, with the steps taken so far replayed. */
  reset(state: PageState, policies: ActivePolicies | undefined): Promise<void> {
    return this.#enqueue(async () => {
      await this.#session.close().catch(() => undefined);
      this.#session = await DemoSession.start(configFor(state, policies));
      this.#policies = policies;
      this.#state = state;
      this.#message = "press p to produce a batch";
      this.#outcome = undefined;
      this.#segment = undefined;
      await this.#replay(state.steps);
    });
  }

  /** Shows segment `n` (1-based), or the active one (undefined). */
  showSegment(n: number | undefined): Promise<void> {
    return this.#enqueue(async () => {
      this.#segment = n;
    });
  }

  /** Resolves when every queued step has run. */
  async idle(): Promise<void> {
    while (this.#pending > 0) await this.#queue;
  }

  #enqueue(work: () => Promise<void>): Promise<void> {
    this.#pending++;
    const done = this.#queue.then(work).finally(async () => {
      this.#pending--;
      await this.#emit();
    });
    this.#queue = done.catch(() => undefined);
    return done;
  }

  async #replay(steps: readonly ScriptStep[]): Promise<void> {
    for (const step of steps) await this.#run(step);
  }

  async #run(step: ScriptStep): Promise<void> {
    try {
      this.#message = await applyStep(this.#session, step);
      if (step.kind === "cut" || step.kind === "restart") this.#outcome = this.#message;
    } catch (err) {
      // As the terminal demo shows a step that threw (a restart a policy broke is not one: the
      // session says "BROKEN" or "THREW" itself).
      this.#message = `error: ${(err instanceof Error ? err.message : String(err)).split("\n")[0]}`;
      if (step.kind === "restart") this.#outcome = this.#message;
    }
  }

  async #emit(): Promise<void> {
    this.#onFrame({
      snapshot: await this.#session.snapshot(this.#segment === undefined ? {} : { segment: this.#segment }),
      message: this.#message,
      outcome: this.#outcome,
      state: this.#state,
      following: this.#segment === undefined,
    });
  }
}

function configFor(state: PageState, policies: ActivePolicies | undefined): DemoConfig {
  const config: DemoConfig = {
    seed: state.seed,
    pageSize: PAGE_SIZE,
    sectorSize: SECTOR_SIZE,
    segmentBytes: SEGMENT_BYTES,
    flushEvery: state.flushEvery,
  };
  return policies === undefined ? config : { ...config, policies: policies.policies };
}
