/**
 * `pagelog mirror <log-dir> <partition|topic> --brokers … --topic …`: the library's `mirror()`
 * (pagelog/kafka) as a process beside the writer: it opens the directory read-only, mirrors
 * until SIGINT or SIGTERM, finishes the transaction in flight and exits 0.
 */
import { readFile, stat } from "node:fs/promises";
import { isPagelogError } from "../../errors.js";
import { mirror } from "../../kafka/mirror.js";
import type { MirrorOptions, MirrorProgress, MirrorSaslOptions, MirrorTlsOptions } from "../../kafka/types.js";
import { dirAndTarget, parseCommandLine } from "../terminal/args.js";
import { type CliIo, UsageError } from "../terminal/io.js";

export const MIRROR_HELP = `pagelog mirror <log-dir> <partition|topic> --brokers <host:port,…> --topic <name> [options]

Forwards a pagelog partition (orders-0), or every partition of a topic (orders), to a Kafka
topic: source partition n into target partition n, every record with its key, value, headers
and timestamp, in order, exactly once across crashes of the mirror, the writer and the broker.
It starts where the target's checkpoint says it left off and follows the source as it grows,
until SIGINT or SIGTERM: then it commits what is in flight and exits 0. The log directory is
opened read-only, beside the writer. The topic must exist with enough partitions. Consumers of
the target must read with isolation.level=read_committed. Needs the package kafkajs.

Exit status: 0 after SIGINT or SIGTERM; 1 an error while running (a source error, another
mirror of the same target took over); 2 bad arguments, or a start that failed (no broker
answered, no such topic, no such partition, a target that does not continue the source).

Options:
  --brokers H:P,…        bootstrap brokers (required)
  --topic NAME           the Kafka topic (required)
  --no-durable           forward records before the writer made them durable (default: only
                         durable ones, so a power cut never takes back a forwarded record)
  --consumers A,B        carry these pagelog consumers' positions to the Kafka consumer groups
                         of the same names, as target offsets of the same records
  --ssl                  connect with TLS (the system's trusted authorities)
  --ssl-ca FILE          trust this PEM authority instead (implies --ssl)
  --ssl-cert FILE        client certificate, PEM (with --ssl-key)
  --ssl-key FILE         client key, PEM
  --ssl-insecure         do not check the brokers' certificates (test clusters only)
  --sasl MECHANISM       plain, scram-sha-256 or scram-sha-512, with --sasl-username and the
                         password in the environment variable PAGELOG_SASL_PASSWORD
  --sasl-username NAME   the SASL user
  -h, --help             show this help
`;

const SASL = ["plain", "scram-sha-256", "scram-sha-512"] as const;

function list(text: string, what: string): string[] {
  const items = text.split(",").map((s) => s.trim());
  if (items.some((s) => s.length === 0))
    throw new UsageError(`--${what} must be a comma-separated list, got '${text}'`);
  return items;
}

async function tls(values: Record<string, string | boolean | undefined>): Promise<MirrorOptions["ssl"]> {
  const file = async (name: string) => {
    const path = values[name] as string | undefined;
    if (path === undefined) return undefined;
    return readFile(path, "utf8").catch((err: NodeJS.ErrnoException) => {
      throw new UsageError(`--${name} ${path}: cannot read it (${err.code ?? err.message})`);
    });
  };
  const [ca, cert, key] = [await file("ssl-ca"), await file("ssl-cert"), await file("ssl-key")];
  if ((cert === undefined) !== (key === undefined)) throw new UsageError("--ssl-cert and --ssl-key go together");
  const insecure = values["ssl-insecure"] === true;
  if (!values.ssl && ca === undefined && cert === undefined && !insecure) return undefined;
  const options: MirrorTlsOptions = {
    ...(ca === undefined ? {} : { ca }),
    ...(cert === undefined ? {} : { cert, key: key! }),
    ...(insecure ? { rejectUnauthorized: false } : {}),
  };
  return Object.keys(options).length === 0 ? true : options;
}

function sasl(values: Record<string, string | boolean | undefined>, io: CliIo): MirrorSaslOptions | undefined {
  const mechanism = values.sasl as string | undefined;
  const username = values["sasl-username"] as string | undefined;
  if (mechanism === undefined) {
    if (username !== undefined) throw new UsageError("--sasl-username needs --sasl <mechanism>");
    return undefined;
  }
  if (!(SASL as readonly string[]).includes(mechanism))
    throw new UsageError(`--sasl must be one of ${SASL.join(", ")}, got '${mechanism}'`);
  const password = io.env.PAGELOG_SASL_PASSWORD;
  if (username === undefined || password === undefined)
    throw new UsageError("--sasl needs --sasl-username and the password in PAGELOG_SASL_PASSWORD");
  return { mechanism: mechanism as MirrorSaslOptions["mechanism"], username, password };
}

async function parse(args: string[], io: CliIo): Promise<Omit<MirrorOptions, "signal"> | "help"> {
  const { values, positionals } = parseCommandLine(
    args,
    {
      brokers: { type: "string" },
      topic: { type: "string" },
      durable: { type: "boolean" },
      "no-durable": { type: "boolean" },
      consumers: { type: "string" },
      ssl: { type: "boolean" },
      "ssl-ca": { type: "string" },
      "ssl-cert": { type: "string" },
      "ssl-key": { type: "string" },
      "ssl-insecure": { type: "boolean" },
      sasl: { type: "string" },
      "sasl-username": { type: "string" },
      help: { type: "boolean", short: "h" },
    },
    true,
  );
  if (values.help === true) return "help";
  const [logDir, source] = dirAndTarget(positionals);
  if (values.brokers === undefined) throw new UsageError("--brokers <host:port,…> is required");
  if (values.topic === undefined || values.topic.length === 0) throw new UsageError("--topic <name> is required");
  const brokers = list(values.brokers, "brokers");
  for (const b of brokers)
    if (!/^[^:\s]+:\d{1,5}$/.test(b) || Number(b.slice(b.lastIndexOf(":") + 1)) > 65535)
      throw new UsageError(`--brokers: '${b}' is not host:port`);
  if (values.durable === true && values["no-durable"] === true)
    throw new UsageError("--durable and --no-durable contradict each other: give one");
  try {
    if (!(await stat(logDir)).isDirectory())
      throw new UsageError(`${logDir} is not a directory; mirror takes a log directory`);
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(`cannot read ${logDir}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  const ssl = await tls(values);
  const auth = sasl(values, io);
  return {
    logDir,
    source,
    brokers,
    topic: values.topic,
    durable: values["no-durable"] !== true,
    ...(values.consumers === undefined ? {} : { consumers: list(values.consumers, "consumers") }),
    ...(ssl === undefined ? {} : { ssl }),
    ...(auth === undefined ? {} : { sasl: auth }),
  };
}

const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;

/** The terminal's progress line: totals, the rate over the last interval, the lag. */
function progressLine(now: MirrorProgress, before: MirrorProgress, seconds: number): string {
  const rate = (now.records - before.records) / seconds;
  const bytes = (now.bytes - before.bytes) / seconds;
  return (
    `mirrored ${now.records.toLocaleString("en-US")} records (${mb(now.bytes)}), ` +
    `${Math.round(rate).toLocaleString("en-US")} records/s ${mb(bytes)}/s, ` +
    `lag ${now.lagRecords.toLocaleString("en-US")} records (≈ ${mb(now.lagBytes)})`
  );
}

export async function run(argv: string[], io: CliIo): Promise<number> {
  const args = await parse(argv, io);
  if (args === "help") {
    io.stdout.write(MIRROR_HELP);
    return 0;
  }
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  let timer: ReturnType<typeof setInterval> | undefined;
  try {
    const running = await mirror({
      ...args,
      signal: stop.signal,
      onWarning: (message) => io.stderr.write(`pagelog mirror: ${message}\n`),
    }).catch((err: unknown) => {
      // A start that failed is the user's to fix (a broker address, a topic, a directory): exit 2.
      if (isPagelogError(err)) throw new UsageError(err.message.split("\n")[0]);
      throw err;
    });
    const start = running.progress();
    io.stderr.write(
      `pagelog mirror: ${args.source} → ${args.topic}: ${start.partitions.map((p) => `${p.source} from offset ${p.next}`).join(", ")}\n`,
    );
    if (io.stdout.isTTY === true) {
      let before = start;
      let at = performance.now();
      timer = setInterval(() => {
        const now = running.progress();
        const t = performance.now();
        io.stdout.write(`\r\x1b[K${progressLine(now, before, (t - at) / 1000)}`);
        before = now;
        at = t;
      }, 1000);
    }
    const end = await running.done;
    if (io.stdout.isTTY === true) io.stdout.write("\n");
    io.stderr.write(
      `pagelog mirror: stopped: ${end.records} records mirrored in ${end.transactions} transactions, lag ${end.lagRecords} records\n`,
    );
    return 0;
  } finally {
    if (timer !== undefined) clearInterval(timer);
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}
