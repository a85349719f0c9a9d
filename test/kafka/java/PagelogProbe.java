// Kafka's own code over pagelog's files, in one JVM for many calls: a JVM start costs about a
// second on 2 cores, so test/kafka writes every call it needs into one script file and runs it
// once (scripts/kafka.mjs, runProbe). Compiled by javac against the pinned Kafka jars.
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.record.FileLogInputStream.FileChannelRecordBatch;
import org.apache.kafka.common.record.FileRecords;
import org.apache.kafka.common.record.Record;

public final class PagelogProbe {
  private PagelogProbe() {}

  /**
   * DumpLogSegments' --key-decoder-class and --value-decoder-class: hex with a prefix, so binary
   * keys and values compare byte for byte (its default StringDecoder mangles them) and an empty
   * one ("hex:") is not mistaken for a missing one.
   */
  public static final class Hex implements org.apache.kafka.tools.api.Decoder<String> {
    @Override
    public String fromBytes(byte[] bytes) {
      return "hex:" + hex(bytes);
    }
  }

  static String hex(byte[] bytes) {
    StringBuilder out = new StringBuilder(bytes.length * 2);
    for (byte b : bytes) out.append(String.format("%02x", b & 0xff));
    return out.toString();
  }

  static String hexOrNull(java.nio.ByteBuffer buffer) {
    if (buffer == null) return "null";
    byte[] bytes = new byte[buffer.remaining()];
    buffer.duplicate().get(bytes);
    return "\"" + hex(bytes) + "\"";
  }

  /** Each line of the script: a command and its arguments, tab-separated. */
  public static void main(String[] args) throws IOException {
    // DumpLogSegments prints index mismatches on stderr: one stream keeps them beside their file.
    System.setErr(System.out);
    List<String> lines = Files.readAllLines(Path.of(args[0]), StandardCharsets.UTF_8);
    for (String line : lines) {
      if (line.isEmpty()) continue;
      String[] parts = line.split("\t");
      System.out.println("@@probe " + parts[0]);
      try {
        switch (parts[0]) {
          case "dump":
            kafka.tools.DumpLogSegments.main(Arrays.copyOfRange(parts, 1, parts.length));
            break;
          case "records":
            records(parts[1]);
            break;
          case "consume":
            consume(parts[1], parts[2], Long.parseLong(parts[3]), Integer.parseInt(parts[4]));
            break;
          default:
            throw new IllegalArgumentException("unknown probe command " + parts[0]);
        }
      } catch (Exception e) {
        // One failed call must not hide the others' output: the test reads which one failed.
        System.out.println("@@probe error " + e.getClass().getName() + ": " + e.getMessage());
      }
      System.out.println("@@probe end");
      System.out.flush();
    }
  }

  /**
   * Kafka's own consumer (read_committed, no group): partition 0 of `topic` from `from`, at most
   * `max` records or up to the end offset, one JSON line each as `records` prints them.
   */
  static void consume(String bootstrap, String topic, long from, int max) {
    java.util.Properties props = new java.util.Properties();
    props.put("bootstrap.servers", bootstrap);
    props.put("key.deserializer", "org.apache.kafka.common.serialization.ByteArrayDeserializer");
    props.put("value.deserializer", "org.apache.kafka.common.serialization.ByteArrayDeserializer");
    props.put("enable.auto.commit", "false");
    props.put("isolation.level", "read_committed");
    org.apache.kafka.common.TopicPartition tp = new org.apache.kafka.common.TopicPartition(topic, 0);
    try (org.apache.kafka.clients.consumer.KafkaConsumer<byte[], byte[]> consumer =
        new org.apache.kafka.clients.consumer.KafkaConsumer<>(props)) {
      consumer.assign(List.of(tp));
      consumer.seek(tp, from);
      long end = consumer.endOffsets(List.of(tp)).get(tp);
      long deadline = System.currentTimeMillis() + 30_000;
      int seen = 0;
      while (seen < max && consumer.position(tp) < end && System.currentTimeMillis() < deadline) {
        for (org.apache.kafka.clients.consumer.ConsumerRecord<byte[], byte[]> r : consumer.poll(java.time.Duration.ofMillis(200))) {
          if (seen >= max) break;
          seen++;
          StringBuilder out = new StringBuilder();
          out.append("{\"offset\":").append(r.offset());
          out.append(",\"timestamp\":").append(r.timestamp());
          out.append(",\"key\":").append(r.key() == null ? "null" : "\"" + hex(r.key()) + "\"");
          out.append(",\"value\":").append(r.value() == null ? "null" : "\"" + hex(r.value()) + "\"");
          out.append(",\"headers\":[");
          Header[] headers = r.headers().toArray();
          for (int i = 0; i < headers.length; i++) {
            if (i > 0) out.append(',');
            byte[] value = headers[i].value();
            out.append("[\"").append(hex(headers[i].key().getBytes(StandardCharsets.UTF_8))).append("\",");
            out.append(value == null ? "null" : "\"" + hex(value) + "\"").append(']');
          }
          out.append("]}");
          System.out.println(out);
        }
      }
    }
  }

  /**
   * Every record of a .log file through kafka-clients' FileRecords, with header values (which
   * DumpLogSegments does not print), as one JSON line each; batch and record CRCs checked first.
   */
  static void records(String path) throws IOException {
    try (FileRecords file = FileRecords.open(new File(path))) {
      for (FileChannelRecordBatch batch : file.batches()) {
        batch.ensureValid();
        for (Record record : batch) {
          record.ensureValid();
          StringBuilder out = new StringBuilder();
          out.append("{\"offset\":").append(record.offset());
          out.append(",\"timestamp\":").append(record.timestamp());
          out.append(",\"key\":").append(hexOrNull(record.key()));
          out.append(",\"value\":").append(hexOrNull(record.value()));
          out.append(",\"headers\":[");
          Header[] headers = record.headers();
          for (int i = 0; i < headers.length; i++) {
            if (i > 0) out.append(',');
            byte[] value = headers[i].value();
            out.append("[\"").append(hex(headers[i].key().getBytes(StandardCharsets.UTF_8))).append("\",");
            out.append(value == null ? "null" : "\"" + hex(value) + "\"").append(']');
          }
          out.append("]}");
          System.out.println(out);
        }
      }
    }
  }
}
