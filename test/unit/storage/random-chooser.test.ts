import { describe, expect, it } from "vitest";
import { randomChooser, type RandomSource, SimStorage } from "../../../src/index.js";

async function crashedBytes(seed: number): Promise<number[]> {
  const disk = new SimStorage({ seed: 1, pageSize: 512, sectorSize: 64 });
  const file = await disk.open("f", { create: true });
  await disk.syncDir(""); // the name survives; the bytes and the size are left to the chooser
  await file.write(0, new Uint8Array(4096).fill(7));
  const after = await disk.crash(randomChooser(seed)).open("f");
  return [...(await after.read(0, await after.size()))];
}

describe("randomChooser, as exported by the root", () => {
  it("takes a seed: the same seed gives the same crash, whatever the storage's own seed", async () => {
    expect(await crashedBytes(42)).toEqual(await crashedBytes(42));
    const fates = new Set<string>();
    for (let seed = 0; seed < 8; seed++) fates.add(JSON.stringify(await crashedBytes(seed)));
    expect(fates.size).toBeGreaterThan(1);
  });

  it("takes any RandomSource", () => {
    const draws: string[] = [];
    const source: RandomSource = {
      int: (n) => (draws.push(`int ${n}`), 0),
      chance: (p) => (draws.push(`chance ${p}`), true),
    };
    const chooser = randomChooser(source);
    expect(chooser.pageFate("f", 0, 8)).toBe("written");
    expect(chooser.sizeCommitted("f", 0, 10)).toBe(true);
    expect(chooser.dirPrefix("", 3)).toBe(0);
    expect(draws).toEqual(["int 3", "chance 0.5", "int 4"]);
  });

  it("refuses anything else with a TypeError", () => {
    for (const bad of [1.5, "7", null, {}, { int: () => 0 }])
      expect(() => randomChooser(bad as never)).toThrow(TypeError);
  });
});
