/**
 * Every options object is `Required<…>` once resolved (issue 19, Deliver 3): each option present,
 * its default filled in. Checked by tsc (`npm test` runs it over test/): a type that drifts from
 * its options, an option added without a resolved field or a resolved field no option has, fails
 * the type check. LogOptions' three exceptions are the ones it documents: `crc32c` stays undefined
 * when not given, `policies` is checked and wrapped, and `cleanupPolicy` is normalized to one of
 * three strings.
 */
import { describe, expectTypeOf, it } from "vitest";
import type { Crc32c } from "../../../src/format/crc32c.js";
import type { Log } from "../../../src/log/log.js";
import type { CleanupPolicy, LogOptions, ResolvedLogOptions } from "../../../src/log/options/log-options.js";
import type { LogPolicies } from "../../../src/log/policies/resolve-policies.js";
import type { resolveSimOptions, SimStorageOptions } from "../../../src/storage/sim/sim-options.js";
import type { SimStorage } from "../../../src/storage/sim-storage.js";

describe("options after resolution", () => {
  it("LogOptions: Required<LogOptions>, crc32c, policies and cleanupPolicy as documented; Log.options is that, read-only", () => {
    expectTypeOf<keyof ResolvedLogOptions>().toEqualTypeOf<keyof Required<LogOptions>>();
    expectTypeOf<Omit<ResolvedLogOptions, "crc32c" | "policies" | "cleanupPolicy">>().toEqualTypeOf<
      Omit<Required<LogOptions>, "crc32c" | "policies" | "cleanupPolicy">
    >();
    expectTypeOf<ResolvedLogOptions["cleanupPolicy"]>().toEqualTypeOf<CleanupPolicy>();
    expectTypeOf<ResolvedLogOptions["crc32c"]>().toEqualTypeOf<Crc32c | undefined>();
    expectTypeOf<ResolvedLogOptions["policies"]>().toEqualTypeOf<LogPolicies | undefined>();
    expectTypeOf<Log["options"]>().toEqualTypeOf<Readonly<ResolvedLogOptions>>();
  });

  it("SimStorage: Required<SimStorageOptions>, and SimStorage.options is that, read-only", () => {
    expectTypeOf<ReturnType<typeof resolveSimOptions>>().toEqualTypeOf<Required<SimStorageOptions>>();
    expectTypeOf<SimStorage["options"]>().toEqualTypeOf<Readonly<Required<SimStorageOptions>>>();
  });
});
