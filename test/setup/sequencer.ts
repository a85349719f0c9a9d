/*
 * The order `vitest run` starts the test files in. Every tier runs in one pool of two workers
 * (vitest.config.ts), so the run's wall time is how well about 900 CPU-seconds of files pack onto
 * two cores. Longest first (the LPT rule): the costliest files start at once and the many small
 * ones fill the end, where one worker would otherwise wait for the other's last long file.
 * Vitest's own order cannot know: on a clean clone it has no timings cached and keeps the
 * alphabetical order, which put the 57 CPU-s course-policies file last.
 *
 * The costs are test/setup/file-costs.ts, measured (`PAGELOG_FILE_TIMES`, docs/testing.md). A
 * file not in the table runs first (it may be long; once measured it takes its place). The unit
 * tier's files run last, one after the other, because its workers keep their module graph
 * between unit files (`isolate: false`) only while the next file in the queue is a unit file too.
 */
import { relative } from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";
import { FILE_COSTS } from "./file-costs.js";

/** A test file to place: its project (tier) and its path from the repository root. */
export interface FileToOrder {
  readonly project: string;
  readonly path: string;
}

/** The run order: other tiers before the unit tier; within each, unmeasured first, then costliest first. */
export function runOrder<T extends FileToOrder>(files: readonly T[], costs: Readonly<Record<string, number>>): T[] {
  const rank = (f: T): [number, number, string] => {
    const cost = costs[f.path];
    return [f.project === "unit" ? 1 : 0, cost === undefined ? -Infinity : -cost, f.path];
  };
  return [...files].sort((a, b) => {
    const [ra, rb] = [rank(a), rank(b)];
    return ra[0] - rb[0] || ra[1] - rb[1] || (ra[2] < rb[2] ? -1 : ra[2] > rb[2] ? 1 : 0);
  });
}

/** Vitest's sequencer (vitest.config.ts, `sequence.sequencer`): sharding as vitest does, the order by cost. */
export class CostliestFirst extends BaseSequencer {
  override sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const placed = files.map((spec) => ({ spec, project: spec.project.name, path: relative(root, spec.moduleId) }));
    return Promise.resolve(runOrder(placed, FILE_COSTS).map((f) => f.spec));
  }
}
