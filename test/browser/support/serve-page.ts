/**
 * `npm run demo:web`'s server (web/serve.mjs) on a built folder, for the tests that need the page
 * over http rather than from disk: started on a free port, stopped by the test.
 */
import { spawn } from "node:child_process";
import { resolve } from "node:path";

const repo = resolve(import.meta.dirname, "../../..");

export async function servePage(outdir: string): Promise<{ url: string; stop(): Promise<void> }> {
  const server = spawn(process.execPath, [resolve(repo, "web/serve.mjs"), outdir], {
    env: { ...process.env, PORT: "0" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const url = await new Promise<string>((ok, fail) => {
    let out = "";
    server.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const m = /(http:\/\/127\.0\.0\.1:\d+\/)/.exec(out);
      if (m !== null) ok(m[1]!);
    });
    server.once("exit", (code) => fail(new Error(`web/serve.mjs exited (${code}) before printing its URL: ${out}`)));
  });
  return {
    url,
    stop: () =>
      new Promise<void>((done) => {
        if (server.exitCode !== null) return done();
        server.once("exit", () => done());
        server.kill();
      }),
  };
}
