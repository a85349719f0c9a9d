/**
 * The Kafka client is an optional peer dependency: only `pagelog/kafka` and `pagelog mirror` load
 * it, at run time, so the core keeps no required dependency and a service that never
 * mirrors installs nothing more. kafkajs is pure JavaScript: a client whose install downloads a
 * native binary does not install where only package registries are reachable.
 */
import type * as KafkaJs from "kafkajs";
import { ErrorCode, PagelogError } from "../errors.js";

/** The peer dependency's package name, as users install it. */
const KAFKA_CLIENT_PACKAGE = "kafkajs";

/** What the mirror uses of the client's module. */
type KafkaClientModule = Pick<typeof KafkaJs, "Kafka" | "logLevel">;

/** Whether `err` says that the module `name` itself (not one of its own imports) cannot be found. */
function isMissing(err: unknown, name: string): boolean {
  if (typeof err !== "object" || err === null) return false;
  const code = (err as { code?: unknown }).code;
  if (code !== "ERR_MODULE_NOT_FOUND" && code !== "MODULE_NOT_FOUND") return false;
  const message = String((err as { message?: unknown }).message);
  return message.includes(`'${name}'`) || message.includes(`"${name}"`);
}

/**
 * Loads the peer dependency `name` with `load` (a dynamic import); a missing package is
 * `PAGELOG_MISSING_DEPENDENCY` naming it and how to install it, never a bare module-resolution
 * error from deep inside the mirror.
 */
async function loadPeer<T>(name: string, load: () => Promise<unknown>, pick: (module: unknown) => T): Promise<T> {
  let module: unknown;
  try {
    module = await load();
  } catch (err) {
    if (isMissing(err, name))
      throw new PagelogError(
        `pagelog/kafka needs the package ${name}, an optional peer dependency that is not installed: npm install ${name}`,
        ErrorCode.MISSING_DEPENDENCY,
        { cause: err },
      );
    throw err;
  }
  return pick(module);
}

/** kafkajs is CommonJS: its names are on the namespace, or on `default` where a loader did not lift them. */
function pickKafkajs(module: unknown): KafkaClientModule {
  const ns = module as Partial<KafkaClientModule> & { default?: Partial<KafkaClientModule> };
  const found = typeof ns.Kafka === "function" ? ns : ns.default;
  if (found?.Kafka === undefined || found.logLevel === undefined)
    throw new PagelogError(
      `the installed ${KAFKA_CLIENT_PACKAGE} has no Kafka class: pagelog/kafka needs kafkajs 2.x`,
      ErrorCode.MISSING_DEPENDENCY,
    );
  return { Kafka: found.Kafka, logLevel: found.logLevel };
}

/** The Kafka client module (kafkajs), or `PAGELOG_MISSING_DEPENDENCY`. */
export function loadKafkaClient(): Promise<KafkaClientModule> {
  return loadPeer(KAFKA_CLIENT_PACKAGE, () => import("kafkajs"), pickKafkajs);
}
