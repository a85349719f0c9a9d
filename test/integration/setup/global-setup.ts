// The integration tier's global set-up (vitest.config.ts, project "integration"): starts the
// run's one private build of the package (test/support/private-build.ts) in the background and
// hands its directory to the tier's files (`inject("privateBuild")`); the first file that needs
// it waits for it. Removed when the run ends.
import type { TestProject } from "vitest/node";
import { startPrivateBuild } from "../../support/private-build.js";

export default function setup(project: TestProject): () => Promise<void> {
  const build = startPrivateBuild();
  project.provide("privateBuild", build.dir);
  return build.stop;
}
