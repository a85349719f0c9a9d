/**
 * The page's script, app.js: web/build.mjs bundles it as a classic script (it works from
 * file://). The checks' worker is not in it: it is checks.js (web/src/checks/main.ts), which the
 * page loads on the first check (web/src/checks/loader.ts).
 */
import { startPage } from "./page.js";

void startPage().catch((err: unknown) => {
  document.body.insertAdjacentText("afterbegin", `the demo failed to start: ${String(err)}`);
  throw err;
});
