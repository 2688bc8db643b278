package org.eventindex.consumer;

import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.MessageLite;
import org.eventindex.proto.EventIndexProtos.BeginGUID_p1;
import org.eventindex.proto.EventIndexProtos.EIEvent_p1;
import org.eventindex.proto.EventIndexProtos.EndGUID_p1;
import org.eventindex.proto.EventIndexProtos.TriggerMenu_p1;
import org.eventindex.spb.EventScan;
import org.eventindex.spb.SpbRecord;

import java.io.BufferedOutputStream;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;

/**
 * The records selected from one object, kept until the consolidated file reaches that object. Records are held in
 * memory while the shared {@link MemoryBudget} allows, then moved to a file in the spool directory, so memory does
 * not grow with the dataset. Write once ({@link #append}, then {@link #seal}), read once ({@link #read}); closing
 * deletes the file and returns the memory. Record layout: one tag byte, then the length-delimited protobuf
 * (events: the tag, their sort key (run, event, simulation flag: 13 bytes), then the length-delimited protobuf).
 */
final class Spool implements SelectedRecords {
    private static final int BEGIN = 'B';
    private static final int MENU = 'M';
    private static final int EVENT = 'E';
    private static final int END = 'N';

    private final Path dir;
    private final String label;
    private final MemoryBudget budget;
    private Buffer memory = new Buffer();
    private long reserved;
    private Path file;
    private OutputStream fileOut;
    private boolean sealed;
    /** An event record's head: type, sort key, length. */
    private final byte[] head = new byte[1 + 13 + 5];
    private long bytes;

    /** @param label names the object in file names and errors */
    Spool(Path dir, String label, MemoryBudget budget) {
        this.dir = Objects.requireNonNull(dir, "dir is null");
        this.label = Objects.requireNonNull(label, "label is null");
        this.budget = Objects.requireNonNull(budget, "budget is null");
    }

    @Override
    public void append(SpbRecord record) throws IOException {
        if (record instanceof SpbRecord.BeginGuid r) {
            write(BEGIN, r.message());
        } else if (record instanceof SpbRecord.TriggerMenu r) {
            write(MENU, r.message());
        } else if (record instanceof SpbRecord.RawEvent r) {
            EventScan e = r.event();
            writeEvent(e.runNumber, e.eventNumber, e.isSimulation, e.buf(), e.offset(), e.length());
        } else if (record instanceof SpbRecord.Event r) {
            byte[] bytes = r.message().toByteArray();
            writeEvent(r.message().getRunNumber(), r.message().getEventNumber(), r.message().getIsSimulation(),
                    bytes, 0, bytes.length);
        } else if (record instanceof SpbRecord.EndGuid r) {
            write(END, r.message());
        } else {
            throw new IllegalArgumentException("spool holds only GUID records, not " + record);
        }
    }

    /** Ends writing; the spool can now be read. */
    @Override
    public void seal() throws IOException {
        if (fileOut != null) {
            fileOut.close();
            fileOut = null;
        }
        sealed = true;
    }

    /** Bytes of records held (memory or file). */
    long bytes() {
        return bytes;
    }

    /** True once the records went to a file. */
    boolean onDisk() {
        return file != null;
    }

    /** Replays the records in write order; events keep their bytes and sort key. */
    @Override
    public void writeTo(ConsolidatedWriter writer) throws IOException {
        read(new RecordVisitor() {
            @Override
            public void accept(SpbRecord r) throws IOException {
                if (r instanceof SpbRecord.BeginGuid b) {
                    writer.beginGuid(b.message());
                } else if (r instanceof SpbRecord.TriggerMenu m) {
                    writer.triggerMenu(m.message());
                } else if (r instanceof SpbRecord.EndGuid e) {
                    writer.endGuid(e.message());
                } else if (r instanceof SpbRecord.Event e) {
                    writer.event(e.message());
                } else {
                    throw new IllegalStateException("unexpected spooled record " + r);
                }
            }

            @Override
            public void event(int run, long event, boolean simulation, byte[] serialized) throws IOException {
                writer.event(run, event, simulation, serialized);
            }
        });
    }

    /** Feeds every record, in write order, to {@code visitor}. Offsets of the returned records are -1. */
    void read(RecordVisitor visitor) throws IOException {
        if (!sealed) {
            throw new IllegalStateException("spool of " + label + " is still being written");
        }
        try (RecordInput in = new RecordInput(file != null ? Files.newInputStream(file) : memory.asInput(),
                64 * 1024)) {
            InputStream stream = in.stream();
            int tag;
            while ((tag = in.read()) >= 0) {
                SpbRecord r = switch (tag) {
                    case BEGIN -> new SpbRecord.BeginGuid(parse(BeginGUID_p1.parser().parseDelimitedFrom(stream)), -1);
                    case MENU -> new SpbRecord.TriggerMenu(parse(TriggerMenu_p1.parser().parseDelimitedFrom(stream)),
                            -1);
                    case EVENT -> {
                        try {
                            int run = in.readInt();
                            long event = in.readLong();
                            int flags = in.readByte();
                            int len = in.readVarint32();
                            if (len < 0) {
                                throw new IOException("spool of " + label + " is corrupt: bad length");
                            }
                            // read straight into the event's own array
                            byte[] bytes = new byte[len];
                            in.readFully(bytes, 0, len);
                            visitor.event(run, event, (flags & 1) != 0, bytes);
                        } catch (java.io.EOFException e) {
                            throw truncated();
                        }
                        yield null;
                    }
                    case END -> new SpbRecord.EndGuid(parse(EndGUID_p1.parser().parseDelimitedFrom(stream)), -1);
                    default -> throw new IOException("spool of " + label + " is corrupt: tag " + tag
                            + (file != null ? " in " + file : ""));
                };
                if (r != null) {
                    visitor.accept(r);
                }
            }
        }
    }

    @Override
    public void close() throws IOException {
        budget.release(reserved);
        reserved = 0;
        memory = null;
        if (fileOut != null) {
            fileOut.close();
            fileOut = null;
        }
        if (file != null) {
            Files.deleteIfExists(file);
        }
    }

    private <T> T parse(T message) throws IOException {
        if (message == null) {
            throw new IOException("spool of " + label + " ends inside a record");
        }
        return message;
    }

    private void write(int tag, MessageLite message) throws IOException {
        if (sealed) {
            throw new IllegalStateException("spool of " + label + " is sealed");
        }
        int size = message.getSerializedSize();
        long need = 1L + CodedOutputStream.computeUInt32SizeNoTag(size) + size;
        if (fileOut == null && !budget.tryReserve(need)) {
            spillToFile();
        } else if (fileOut == null) {
            reserved += need;
        }
        OutputStream out = fileOut != null ? fileOut : memory;
        out.write(tag);
        message.writeDelimitedTo(out);
        bytes += need;
    }

    /**
     * An event record carries its sort key ahead of the message (run, event, simulation flag: 13 bytes), so the
     * reader hands over the serialized bytes and the key without parsing the event again.
     */
    private void writeEvent(int run, long event, boolean simulation, byte[] bytes, int off, int size)
            throws IOException {
        if (sealed) {
            throw new IllegalStateException("spool of " + label + " is sealed");
        }
        long need = 1L + 13 + CodedOutputStream.computeUInt32SizeNoTag(size) + size;
        if (fileOut == null && !budget.tryReserve(need)) {
            spillToFile();
        } else if (fileOut == null) {
            reserved += need;
        }
        OutputStream out = fileOut != null ? fileOut : memory;
        byte[] head = this.head;
        int p = 0;
        head[p++] = (byte) EVENT;
        for (int s = 24; s >= 0; s -= 8) {
            head[p++] = (byte) (run >>> s);
        }
        for (int s = 56; s >= 0; s -= 8) {
            head[p++] = (byte) (event >>> s);
        }
        head[p++] = (byte) (simulation ? 1 : 0);
        int v = size;
        while ((v & ~0x7f) != 0) {
            head[p++] = (byte) ((v & 0x7f) | 0x80);
            v >>>= 7;
        }
        head[p++] = (byte) v;
        out.write(head, 0, p);
        out.write(bytes, off, size);
        this.bytes += need;
    }

    private IOException truncated() {
        return new IOException("spool of " + label + " ends inside a record");
    }

    private void spillToFile() throws IOException {
        Files.createDirectories(dir);
        file = Files.createTempFile(dir, "spool-", ".bin");
        fileOut = new BufferedOutputStream(Files.newOutputStream(file), 64 * 1024);
        memory.writeTo(fileOut);
        memory = null;
        budget.release(reserved);
        reserved = 0;
    }

    /** Receives spooled records. */
    @FunctionalInterface
    interface RecordVisitor {
        void accept(SpbRecord record) throws IOException;

        /**
         * An event, as its deterministic serialization with its sort key; by default parsed and passed to
         * {@link #accept}.
         */
        default void event(int run, long event, boolean simulation, byte[] serialized) throws IOException {
            accept(new SpbRecord.Event(EIEvent_p1.parseFrom(serialized), -1));
        }
    }

    /** An in-memory buffer that can be read without copying. */
    private static final class Buffer extends ByteArrayOutputStream {
        Buffer() {
            super(4096);
        }

        InputStream asInput() {
            return new ByteArrayInputStream(buf, 0, count);
        }
    }

    /** Memory shared by the spools of one dataset; a spool that cannot reserve more moves to disk. */
    static final class MemoryBudget {
        private long available;

        MemoryBudget(long bytes) {
            if (bytes < 0) {
                throw new IllegalArgumentException("memory budget must not be negative: " + bytes);
            }
            this.available = bytes;
        }

        synchronized boolean tryReserve(long n) {
            if (n > available) {
                return false;
            }
            available -= n;
            return true;
        }

        synchronized void release(long n) {
            available += n;
        }

        synchronized long available() {
            return available;
        }
    }
}
