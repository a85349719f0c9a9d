/**
 * `LogOptions` resolved synchronously, with every resolver at hand: the testing adapter's check
 * (`pagelogAdapter`) and the tests. `LogDir` resolves through log-option-resolvers.ts instead,
 * which loads the resolvers of the rarely given options (rare-options.ts) only for options that
 * give one; each option resolves the same either way.
 */
import type { LogOptions, ResolvedLogOptions } from "./log-options.js";
import { resolveLogOptionsWith } from "./log-option-resolvers.js";
import { RARE_RESOLVERS } from "./rare-options.js";

/**
 * Validates and fills in defaults. Bad values are TypeErrors naming the option; an unknown key
 * is one naming it and the known ones.
 */
export function resolveLogOptions(options: LogOptions = {}, what = "options"): ResolvedLogOptions {
  return resolveLogOptionsWith(options, what, RARE_RESOLVERS);
}
