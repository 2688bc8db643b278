package org.eventindex.supervisor.journal;

import com.fasterxml.jackson.annotation.JsonProperty;
import org.eventindex.io.LimitedInputStream;
import org.eventindex.message.FormatVersion;
import org.eventindex.message.Json;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.security.DigestInputStream;
import java.security.DigestOutputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Optional;

import static org.eventindex.EventIndexFailure.Kind.FATAL;

/**
 * The checkpoint file: the state as of one journal entry, written by the state's owner, so that a start replays only
 * the entries after it. Layout: the body (the owner's bytes, JSON for the supervisor), then one trailer line
 * {@code {"checkpoint":1,"seq":N,"ts":T,"bodyBytes":B,"sha256":"..."}}. The trailer is written last because the
 * body's length and digest are only known then; a reader finds it at the end of the file. Written to a temporary file,
 * forced, then renamed over the previous checkpoint, so a crash leaves either the old or the new one, never a mix.
 */
final class CheckpointFile {
    static final String NAME = "supervisor.checkpoint";
    static final String TEMP_NAME = NAME + ".tmp";
    static final int FORMAT = 1;
    private static final int MAX_TRAILER = 4096;

    /** The last line of a checkpoint file. */
    record Trailer(@JsonProperty("checkpoint") int format, @JsonProperty("seq") long seq, @JsonProperty("ts") long ts,
                   @JsonProperty("bodyBytes") long bodyBytes, @JsonProperty("sha256") String sha256) {
    }

    private CheckpointFile() {
    }

    /** Writes the checkpoint of entry {@code seq} and makes it the current one (durably) before returning. */
    static Trailer write(JournalFiles files, long seq, long tsMillis, Journal.StateWriter state) throws IOException {
        MessageDigest sha = sha256();
        try {
            Trailer trailer;
            try (JournalFiles.Appender temp = files.create(TEMP_NAME, true)) {
                CountingOutputStream counted = new CountingOutputStream(temp);
                try (OutputStream out = new BufferedOutputStream(new DigestOutputStream(counted, sha), 1 << 16)) {
                    state.writeTo(out);
                }
                trailer = new Trailer(FORMAT, seq, tsMillis, counted.count, HexFormat.of().formatHex(sha.digest()));
                temp.write(trailerLine(trailer));
                temp.sync();
            }
            files.rename(TEMP_NAME, NAME);
            return trailer;
        } catch (IOException | RuntimeException e) {
            files.deleteIfExists(TEMP_NAME);
            throw e;
        }
    }

    /**
     * Reads the current checkpoint, if there is one: checks its trailer, passes its body to {@code restore}, and checks
     * the body's digest once it has been read.
     *
     * @throws JournalException when the file is not a complete checkpoint or its body does not match its digest
     */
    static Optional<Trailer> read(JournalFiles files, Journal.StateReader restore) throws IOException {
        String file = files.describe(NAME);
        files.deleteIfExists(TEMP_NAME); // an unfinished checkpoint: the previous one still holds
        if (!files.exists(NAME)) {
            return Optional.empty();
        }
        long size = files.size(NAME);
        Trailer t = trailer(files, size);
        MessageDigest sha = sha256();
        Exception refused = null;
        try (InputStream body = new DigestInputStream(new LimitedInputStream(new BufferedInputStream(
                files.read(NAME, 0), 1 << 16), t.bodyBytes()), sha)) {
            try {
                restore.readFrom(t.seq(), new FilterInputStream(body) {
                    @Override
                    public void close() {
                        // the rest of the body is still to be digested
                    }
                });
            } catch (IOException | RuntimeException e) {
                refused = e; // a damaged body is said as such, whatever the reader made of it
            }
            body.transferTo(OutputStream.nullOutputStream());
        }
        String actual = HexFormat.of().formatHex(sha.digest());
        if (!actual.equals(t.sha256())) {
            JournalException e = damaged(file, "its body's SHA-256 is " + actual + ", its trailer says " + t.sha256());
            if (refused != null) {
                e.addSuppressed(refused);
            }
            throw e;
        }
        if (refused != null) {
            throw new JournalException(FATAL, "checkpoint " + file + " (" + t.bodyBytes() + " bytes of state at entry "
                    + t.seq() + ", digest intact) cannot be restored: " + refused.getMessage(), refused);
        }
        return Optional.of(t);
    }

    private static Trailer trailer(JournalFiles files, long size) throws IOException {
        String file = files.describe(NAME);
        int tail = (int) Math.min(size, MAX_TRAILER);
        byte[] bytes;
        try (InputStream in = files.read(NAME, size - tail)) {
            bytes = in.readNBytes(tail);
        }
        if (bytes.length < tail) {
            throw damaged(file, "it shrank while being read");
        }
        if (tail == 0 || bytes[tail - 1] != '\n') {
            throw damaged(file, "it does not end with a trailer line");
        }
        int start = tail - 1;
        while (start > 0 && bytes[start - 1] != '\n') {
            start--;
        }
        Trailer t;
        try {
            t = Json.read(Arrays.copyOfRange(bytes, start, tail - 1), Trailer.class);
        } catch (IOException | RuntimeException e) {
            throw damaged(file, "its trailer line is not readable (" + e.getMessage() + ")");
        }
        if (t != null && t.format() > FORMAT) {
            throw new JournalException(FATAL, FormatVersion.newer("checkpoint " + file + " (its trailer)", t.format(),
                    FORMAT, "supervisor").orElseThrow());
        }
        if (t == null || t.format() != FORMAT) {
            throw damaged(file, "its trailer has format " + (t == null ? "none" : t.format()) + "; this supervisor"
                    + " reads format " + FORMAT);
        }
        if (start == 0) {
            throw damaged(file, "its trailer line is not preceded by the line break that ends the state");
        }
        long expected = size - (tail - start) - 1;
        if (t.bodyBytes() != expected || t.seq() < 1 || t.sha256() == null) {
            throw damaged(file, "its trailer says " + t.bodyBytes() + " bytes of state at entry " + t.seq()
                    + ", the file holds " + expected);
        }
        return t;
    }

    private static byte[] trailerLine(Trailer t) {
        byte[] json = Json.write(t);
        byte[] line = new byte[json.length + 2];
        line[0] = '\n'; // the body need not end with a newline; the trailer is always a line of its own
        System.arraycopy(json, 0, line, 1, json.length);
        line[line.length - 1] = '\n';
        return line;
    }

    private static JournalException damaged(String file, String why) {
        return new JournalException(FATAL, "checkpoint " + file + " is damaged: " + why + ". Move it aside and restore"
                + " the previous checkpoint with its journal segments from a backup (the journal alone starts from the"
                + " checkpoint's entry).");
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is not available in this JVM", e);
        }
    }

    /** Counts the body's bytes (the trailer names them) on their way to the file. */
    private static final class CountingOutputStream extends OutputStream {
        private final JournalFiles.Appender out;
        private long count;

        CountingOutputStream(JournalFiles.Appender out) {
            this.out = out;
        }

        @Override
        public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            out.write(off == 0 && len == b.length ? b : java.util.Arrays.copyOfRange(b, off, off + len));
            count += len;
        }

        @Override
        public void close() {
            // the appender is closed by its owner, after the trailer
        }
    }
}
