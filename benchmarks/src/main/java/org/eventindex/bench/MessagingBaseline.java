package org.eventindex.bench;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.google.protobuf.ByteString;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Message;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.eventindex.gen.GeneratedJob;
import org.eventindex.spb.SpbLimits;
import org.eventindex.spb.SpbReader;
import org.eventindex.spb.SpbRecord;
import org.eventindex.stomp.StompMessage;
import org.eventindex.stomp.StompQueueWorker;
import org.eventindex.stomp.StompSender;
import org.eventindex.stomp.StompSettings;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;

/**
 * The old messaging path of seed 000 (section 2, Table 2), as a benchmark baseline only: producers send each input
 * file's events as JSON text in messages of about 10 kB through the broker; one consumer writes every input file it
 * receives to its own HDFS file (one file per input file and job attempt, as the old consumers did); then a cleaning
 * pass removes the files of retried jobs' duplicated attempts, keeping one per input file. Everything goes through the
 * same broker and HDFS as the object-store path of the run.
 *
 * <p>What it leaves out, on purpose: the old system's per-file STOMP transactions (the project's STOMP client sends
 * each message with a receipt, which makes every message durable before the next one, as a transaction's commit
 * would) and its validation against the catalogue. Both would only make the old path slower.
 */
final class MessagingBaseline {
    /** The bench's own queue; the admin login may use any destination. */
    static final String QUEUE = "/queue/atlas.eventindex.bench.messaging";
    /** The seed's message size: "divided into smaller 10 kB messages". */
    static final int CHUNK_BYTES = 10_000;
    private static final String H_FILE = "ei-file";
    private static final String H_GUID = "ei-guid";
    private static final String H_LAST = "ei-last";
    private static final String H_EVENTS = "ei-events";
    /** Between the job and the GUID in a file's name (job IDs hold dots, GUIDs only hex digits and dashes). */
    private static final String FILE_SEPARATOR = "__";

    private final StompSettings stomp;
    private final FileSystem fs;
    private final Path root;
    private final int senders;

    /** What the messaging path did. */
    record Result(int attempts, int inputFiles, long messages, long jsonBytes, long eventsReceived, long eventsKept,
                  long hdfsFilesWritten, long hdfsBytesWritten, int filesCleaned, long eventsCleaned,
                  long sendMillis, long receiveMillis, long cleanMillis) {
        /** First message sent to the last duplicate removed: the old path's time to clean data. */
        long totalMillis() {
            return receiveMillis + cleanMillis;
        }
    }

    MessagingBaseline(StompSettings stomp, FileSystem fs, Path root, int senders) {
        this.stomp = Objects.requireNonNull(stomp, "stomp is null");
        this.fs = Objects.requireNonNull(fs, "fs is null");
        this.root = Objects.requireNonNull(root, "root is null");
        if (senders < 1) {
            throw new IllegalArgumentException("senders must be >= 1: " + senders);
        }
        this.senders = senders;
    }

    /**
     * Sends every job attempt's SPB file in {@code attempts} through the broker, waits until the consumer has written
     * each input file, then cleans the duplicates. {@code progress} gets the events received so far.
     */
    Result run(List<GeneratedJob> attempts, Duration timeout, LongConsumer progress)
            throws IOException, InterruptedException {
        fs.mkdirs(root);
        Receiver receiver = new Receiver();
        int expectedFiles = 0;
        for (GeneratedJob job : attempts) {
            expectedFiles += job.guids().size();
        }
        AtomicLong messages = new AtomicLong();
        AtomicLong jsonBytes = new AtomicLong();
        long t0 = System.nanoTime();
        long sendNanos;
        try (StompQueueWorker worker = new StompQueueWorker("messaging-baseline", stomp, QUEUE, 200, receiver)) {
            worker.start();
            List<Callable<Void>> producers = new ArrayList<>();
            for (GeneratedJob job : attempts) {
                producers.add(() -> {
                    sendAttempt(job, messages, jsonBytes);
                    return null;
                });
            }
            runAll(senders, producers, "messaging baseline: a producer");
            sendNanos = System.nanoTime() - t0;
            long deadline = System.nanoTime() + timeout.toNanos();
            while (receiver.filesClosed() < expectedFiles) {
                if (worker.failure() != null) {
                    throw new IOException("messaging baseline: the consumer failed: " + worker.failure(),
                            worker.failure());
                }
                if (System.nanoTime() > deadline) {
                    throw new IOException("messaging baseline: " + receiver.filesClosed() + " of " + expectedFiles
                            + " files written within " + timeout);
                }
                progress.accept(receiver.eventsReceived());
                Thread.sleep(100);
            }
        }
        progress.accept(receiver.eventsReceived());
        long receiveNanos = System.nanoTime() - t0;
        long c0 = System.nanoTime();
        long[] cleaned = clean();
        long cleanNanos = System.nanoTime() - c0;
        long written = 0;
        long bytes = 0;
        for (FileStatus st : fs.listStatus(root)) {
            written++;
            bytes += st.getLen();
        }
        return new Result(attempts.size(), receiver.guids(), messages.get(), jsonBytes.get(),
                receiver.eventsReceived(), receiver.eventsReceived() - cleaned[1], written + cleaned[0], bytes,
                (int) cleaned[0], cleaned[1], sendNanos / 1_000_000, receiveNanos / 1_000_000,
                cleanNanos / 1_000_000);
    }

    /** Runs {@code tasks} on {@code threads} threads and waits for all; the first failure names {@code what}. */
    static void runAll(int threads, List<Callable<Void>> tasks, String what) throws IOException,
            InterruptedException {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<Void>> futures = new ArrayList<>();
            for (Callable<Void> t : tasks) {
                futures.add(pool.submit(t));
            }
            for (Future<Void> f : futures) {
                try {
                    f.get();
                } catch (ExecutionException e) {
                    throw new IOException(what + " failed: " + e.getCause(), e.getCause());
                }
            }
        } finally {
            pool.shutdownNow();
        }
    }

    /** One producer: each input file of the attempt as JSON chunks, the last one saying how many events. */
    private void sendAttempt(GeneratedJob job, AtomicLong messages, AtomicLong jsonBytes) throws IOException {
        JsonFactory factory = new JsonFactory();
        try (StompSender sender = new StompSender(stomp);
             SpbReader reader = SpbReader.open(job.spbFile(), SpbLimits.DEFAULT)) {
            String guid = null;
            long events = 0;
            ByteArrayOutputStream chunk = new ByteArrayOutputStream(CHUNK_BYTES + 2_000);
            for (SpbRecord r = reader.next(); r != null; r = reader.next()) {
                if (r instanceof SpbRecord.BeginGuid b) {
                    guid = b.message().getGuid();
                    events = 0;
                    chunk.reset();
                } else if (r instanceof SpbRecord.Event e) {
                    if (chunk.size() > 0) {
                        chunk.write('\n');
                    }
                    try (JsonGenerator g = factory.createGenerator(chunk)) {
                        writeJson(g, e.message());
                    }
                    events++;
                    if (chunk.size() >= CHUNK_BYTES) {
                        send(sender, job, guid, chunk, Map.of(), messages, jsonBytes);
                    }
                } else if (r instanceof SpbRecord.EndGuid) {
                    send(sender, job, guid, chunk, Map.of(H_LAST, "true", H_EVENTS, Long.toString(events)),
                            messages, jsonBytes);
                    guid = null;
                }
            }
        }
    }

    private static void send(StompSender sender, GeneratedJob job, String guid, ByteArrayOutputStream chunk,
                             Map<String, String> extra, AtomicLong messages, AtomicLong jsonBytes)
            throws IOException {
        if (guid == null) {
            throw new IOException("event outside a GUID block in " + job.spbFile());
        }
        Map<String, String> headers = new HashMap<>(extra);
        headers.put(H_FILE, job.jobID() + FILE_SEPARATOR + guid);
        headers.put(H_GUID, guid);
        byte[] body = chunk.toByteArray();
        sender.send(QUEUE, body, headers);
        messages.incrementAndGet();
        jsonBytes.addAndGet(body.length);
        chunk.reset();
    }

    /** A protobuf message as a JSON object, field by field (bytes as base64, as the old producers' text format). */
    static void writeJson(JsonGenerator g, Message m) throws IOException {
        g.writeStartObject();
        for (Map.Entry<FieldDescriptor, Object> f : m.getAllFields().entrySet()) {
            g.writeFieldName(f.getKey().getJsonName());
            if (f.getKey().isRepeated()) {
                g.writeStartArray();
                for (Object v : (List<?>) f.getValue()) {
                    writeValue(g, v);
                }
                g.writeEndArray();
            } else {
                writeValue(g, f.getValue());
            }
        }
        g.writeEndObject();
    }

    private static void writeValue(JsonGenerator g, Object v) throws IOException {
        if (v instanceof Message m) {
            writeJson(g, m);
        } else if (v instanceof ByteString b) {
            g.writeString(Base64.getEncoder().encodeToString(b.toByteArray()));
        } else if (v instanceof Integer i) {
            g.writeNumber(i);
        } else if (v instanceof Long l) {
            g.writeNumber(l);
        } else if (v instanceof Number n) {
            g.writeNumber(n.doubleValue());
        } else if (v instanceof Boolean b) {
            g.writeBoolean(b);
        } else {
            g.writeString(String.valueOf(v));
        }
    }

    /**
     * The cleaning pass: per input file, keeps the first attempt's HDFS file and deletes the others. Returns the
     * files deleted and the events they held.
     */
    private long[] clean() throws IOException {
        Map<String, List<FileStatus>> byGuid = new TreeMap<>();
        for (FileStatus st : fs.listStatus(root)) {
            String name = st.getPath().getName();
            String guid = name.substring(name.indexOf(FILE_SEPARATOR) + FILE_SEPARATOR.length(),
                    name.length() - ".json".length());
            byGuid.computeIfAbsent(guid, k -> new ArrayList<>()).add(st);
        }
        long files = 0;
        long events = 0;
        for (List<FileStatus> copies : byGuid.values()) {
            copies.sort((a, b) -> a.getPath().getName().compareTo(b.getPath().getName()));
            for (FileStatus extra : copies.subList(1, copies.size())) {
                events += countLines(extra.getPath());
                if (!fs.delete(extra.getPath(), false)) {
                    throw new IOException("cleaning: could not delete " + extra.getPath());
                }
                files++;
            }
        }
        return new long[] {files, events};
    }

    /** Events in one old-style file: one JSON object per line. */
    private long countLines(Path file) throws IOException {
        long lines = 0;
        byte[] buf = new byte[64 * 1024];
        try (var in = fs.open(file)) {
            boolean any = false;
            for (int n = in.read(buf); n > 0; n = in.read(buf)) {
                any = true;
                for (int i = 0; i < n; i++) {
                    if (buf[i] == '\n') {
                        lines++;
                    }
                }
            }
            return any ? lines + 1 : 0;
        }
    }

    /** The old consumer: appends each message to its input file's HDFS file, closes it at the last message. */
    private final class Receiver implements org.eventindex.stomp.StompMessageHandler {
        private final Map<String, FSDataOutputStream> open = new HashMap<>();
        private final java.util.Set<String> guids = java.util.concurrent.ConcurrentHashMap.newKeySet();
        private volatile long closed;
        private volatile long events;

        @Override
        public void onMessage(StompMessage m) throws IOException {
            String file = m.headers().get(H_FILE);
            if (file == null) {
                throw new IOException("messaging baseline: message " + m.messageId() + " has no " + H_FILE + " header");
            }
            if (m.redelivered()) {
                // A redelivery after a reconnect: the old consumers restarted the file; this baseline never sees
                // one on a healthy local broker, so it is an error rather than a silent double count.
                throw new IOException("messaging baseline: message " + m.messageId() + " was redelivered");
            }
            FSDataOutputStream out = open.get(file);
            boolean first = out == null;
            if (first) {
                out = fs.create(new Path(root, file + ".json"), false);
                open.put(file, out);
            } else if (m.body().length > 0) {
                out.write('\n');
            }
            out.write(m.body());
            if ("true".equals(m.headers().get(H_LAST))) {
                out.close();
                open.remove(file);
                guids.add(m.headers().get(H_GUID));
                events += Long.parseLong(m.headers().get(H_EVENTS));
                closed++;
            }
        }

        long filesClosed() {
            return closed;
        }

        long eventsReceived() {
            return events;
        }

        int guids() {
            return guids.size();
        }
    }
}
