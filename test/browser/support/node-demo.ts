/**
 * The same run in Node: a DemoSession with the page's geometry, the same seed and the same
 * steps. The simulator is seeded, so the page must show exactly what this reports.
 */
import type { CoursePolicies } from "../../../src/course.js";
import { applyStep, parseScript } from "../../../src/demo/script.js";
import { type DemoSnapshot, DemoSession } from "../../../src/demo/session.js";
import { PAGE_SIZE, SECTOR_SIZE, SEGMENT_BYTES } from "../../../web/src/controller.js";

export async function runInNode(
  seed: number,
  script: string,
  options: { flushEvery?: number; policies?: Partial<CoursePolicies> } = {},
): Promise<{ messages: string[]; snapshot: DemoSnapshot }> {
  const session = await DemoSession.start({
    seed,
    pageSize: PAGE_SIZE,
    sectorSize: SECTOR_SIZE,
    segmentBytes: SEGMENT_BYTES,
    flushEvery: options.flushEvery ?? 0,
    ...(options.policies === undefined ? {} : { policies: options.policies }),
  });
  const messages: string[] = [];
  for (const step of parseScript(script)) messages.push(await applyStep(session, step));
  const snapshot = await session.snapshot();
  await session.close();
  return { messages, snapshot };
}
