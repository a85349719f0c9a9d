/*
 * The mirror's public shapes (`pagelog/kafka`): its options, its progress and its handle. No
 * kafkajs type appears here, so the entry's types load without the optional peer installed.
 */

/**
 * An open `LogDir` of `pagelog`, as the mirror takes it: typed by two of its members, so that a
 * `LogDir` from the root entry fits (the class itself, with private fields, is declared again in
 * each entry's published types, and TypeScript would not take one for the other).
 */
export interface MirrorSourceDir {
  /** `LogDir.readOnly`: opened with `{ readOnly: true }`. */
  readonly readOnly: boolean;
  /** `LogDir.logs()`: the names of its partition directories. */
  logs(): Promise<string[]>;
}

/** TLS for the connection to the brokers, passed to the client as Node's `tls.connect` options. */
export interface MirrorTlsOptions {
  /** PEM certificate authorities to trust instead of the system's. */
  readonly ca?: string | Uint8Array | ReadonlyArray<string | Uint8Array>;
  /** PEM client certificate (mutual TLS). */
  readonly cert?: string | Uint8Array;
  /** PEM private key of `cert`. */
  readonly key?: string | Uint8Array;
  /** Passphrase of `key`. */
  readonly passphrase?: string;
  /** Check the brokers' certificates (default true; false only for a test cluster). */
  readonly rejectUnauthorized?: boolean;
  /** The name to check the certificate against, when it is not the broker's host. */
  readonly servername?: string;
}

/** SASL authentication, passed to the client. */
export interface MirrorSaslOptions {
  /** `plain`, `scram-sha-256` or `scram-sha-512`. */
  readonly mechanism: "plain" | "scram-sha-256" | "scram-sha-512";
  /** The user name. */
  readonly username: string;
  /** The password. */
  readonly password: string;
}

/** What {@link mirror} takes. */
export interface MirrorOptions {
  /**
   * An open log directory to mirror from, in this process (a writer's own, or a read-only one).
   * The mirror never closes it. Give this or `logDir`.
   */
  readonly dir?: MirrorSourceDir;
  /** The path of a log directory, opened read-only (no lock, nothing written but consumer positions' files are read). */
  readonly logDir?: string;
  /** A partition (`orders-0`) or a topic (`orders`: every partition) of the directory. */
  readonly source: string;
  /** Bootstrap brokers, `host:port`. */
  readonly brokers: readonly string[];
  /** The Kafka topic: source partition n goes to its partition n. It must exist, with enough partitions. */
  readonly topic: string;
  /**
   * Forward only records the writer made durable (below its recovery point). Default true: a
   * record a power cut takes back would otherwise be in Kafka while the source reuses its offset
   * for another record, and the target and the source would disagree for good.
   * @defaultValue true
   */
  readonly durable?: boolean;
  /**
   * pagelog consumer names whose committed positions are carried to Kafka consumer groups of the
   * same names, translated to the target offsets of the same records.
   */
  readonly consumers?: readonly string[];
  /** TLS: `true` for the system's trust, or options. */
  readonly ssl?: boolean | MirrorTlsOptions;
  /** SASL authentication. */
  readonly sasl?: MirrorSaslOptions;
  /** Stops the mirror, as `stop()` does. */
  readonly signal?: AbortSignal;
  /** The client id the brokers see. @defaultValue "pagelog-mirror" */
  readonly clientId?: string;
  /** At most this many bytes of records in one transaction (at least one batch). @defaultValue 1 MiB */
  readonly maxTransactionBytes?: number;
  /** Told of a problem the mirror recovers from by itself (the broker went away, a transaction was retried). */
  readonly onWarning?: (message: string) => void;
}

/** One source partition's progress. */
export interface MirrorPartitionProgress {
  /** The source partition's name (`orders-0`). */
  readonly source: string;
  /** The target partition. */
  readonly partition: number;
  /** The next source offset to mirror: everything below it is in the target. */
  readonly next: number;
  /** How far the mirror may go now: the source's recovery point (durable) or end offset. */
  readonly available: number;
  /** Records mirrored since the start. */
  readonly records: number;
  /** Bytes of keys, values and headers mirrored since the start. */
  readonly bytes: number;
}

/** What the mirror did so far, over all partitions. */
export interface MirrorProgress {
  /** Records mirrored since the start. */
  readonly records: number;
  /** Bytes of keys, values and headers mirrored since the start. */
  readonly bytes: number;
  /** Records the source holds that are not mirrored yet (`available - next`, summed). */
  readonly lagRecords: number;
  /** The bytes of those records, estimated from the average size mirrored so far (0 before the first). */
  readonly lagBytes: number;
  /** Transactions committed. */
  readonly transactions: number;
  /** Sessions restarted after a recoverable error (the broker went away, …). */
  readonly restarts: number;
  /** Per source partition. */
  readonly partitions: readonly MirrorPartitionProgress[];
}

/** A running mirror, from {@link mirror}. */
export interface Mirror {
  /**
   * Resolves with the last progress once the mirror stopped (after `stop()` or the signal):
   * what was in flight is committed first. Rejects when it stopped on an error it cannot recover
   * from (a source error, `PAGELOG_MIRROR_DIVERGED`, `PAGELOG_KAFKA` when another mirror fenced it).
   */
  readonly done: Promise<MirrorProgress>;
  /** Stops the mirror after what is in flight; resolves (or rejects) as `done`. */
  stop(): Promise<MirrorProgress>;
  /** The progress now. */
  progress(): MirrorProgress;
}
