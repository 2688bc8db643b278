package org.eventindex.supervisor.journal;

import com.fasterxml.jackson.core.JsonProcessingException;
import org.eventindex.message.Json;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.function.Consumer;

import static org.eventindex.EventIndexFailure.Kind.FATAL;

/**
 * One pass over a journal file at open: every complete line parsed and checked for order; the entries after the
 * checkpoint's ({@code base}) replayed, those up to it skipped.
 *
 * @param validBytes bytes of complete lines (what follows is a torn last line)
 * @param lastSeq    the last entry's sequence number, 0 for an empty file
 * @param replayed   entries passed to the replay
 * @param skipped    entries the checkpoint already held
 */
record JournalScan(long validBytes, long lastSeq, long replayed, long skipped) {

    /** Replays the entries after {@code base} (the checkpoint's); those up to it are checked for order and skipped. */
    static JournalScan scan(JournalFiles files, long base, Consumer<JournalEntry> replay) throws IOException {
        String file = files.describe(Journal.FILE_NAME);
        long offset = 0;
        long validBytes = 0;
        long lastSeq = -1;
        long lineNo = 0;
        long skipped = 0;
        ByteArrayOutputStream line = new ByteArrayOutputStream(1024);
        try (InputStream in = new BufferedInputStream(files.read(Journal.FILE_NAME, 0), 1 << 16)) {
            int b;
            while ((b = in.read()) >= 0) {
                offset++;
                if (b != '\n') {
                    line.write(b);
                    continue;
                }
                lineNo++;
                JournalEntry entry = parse(file, lineNo, validBytes, line.toByteArray());
                if (lastSeq < 0 && entry.seq() > base + 1) {
                    throw new JournalException(FATAL, "journal " + file + " starts at entry " + entry.seq() + " but "
                            + (base == 0 ? "there is no checkpoint" : "the checkpoint holds the state up to entry "
                            + base) + ": entries " + (base + 1) + " to " + (entry.seq() - 1) + " are missing. Restore"
                            + " the matching checkpoint (" + CheckpointFile.NAME + ") and journal from a backup.");
                }
                if (lastSeq >= 0 && entry.seq() != lastSeq + 1) {
                    throw new JournalException(FATAL, "journal " + file + " line " + lineNo + " has sequence number "
                            + entry.seq() + ", expected " + (lastSeq + 1) + "; the file was edited or two files were"
                            + " concatenated. Restore it from a backup.");
                }
                if (entry.seq() > base) {
                    replay.accept(entry);
                } else {
                    skipped++;
                }
                lastSeq = entry.seq();
                validBytes = offset;
                line.reset();
            }
        }
        if (lastSeq >= 0 && lastSeq < base) {
            throw new JournalException(FATAL, "journal " + file + " ends at entry " + lastSeq
                    + " but the checkpoint holds the state up to entry " + base + ": this journal file is older than"
                    + " the checkpoint. Restore the matching checkpoint (" + CheckpointFile.NAME + ") and journal"
                    + " from a backup.");
        }
        return new JournalScan(validBytes, Math.max(lastSeq, 0), lineNo - skipped, skipped);
    }

    private static JournalEntry parse(String file, long lineNo, long offset, byte[] line) throws JournalException {
        try {
            JournalEntry entry = Json.read(line, JournalEntry.class);
            if (entry == null) {
                throw new JournalException(FATAL, "journal " + file + " line " + lineNo + " (byte offset " + offset
                        + ") is empty");
            }
            return entry;
        } catch (JsonProcessingException | IllegalArgumentException | NullPointerException e) {
            throw new JournalException(FATAL, "journal " + file + " line " + lineNo + " (byte offset " + offset
                    + ") is not a valid entry: " + message(e) + ". Only a torn last line is repaired automatically;"
                    + " restore the file from a backup or move it aside and re-register the datasets.", e);
        } catch (IOException e) {
            throw new JournalException(FATAL, "journal " + file + " line " + lineNo + " cannot be read: "
                    + e.getMessage(), e);
        }
    }

    private static String message(Exception e) {
        return e instanceof JsonProcessingException j ? j.getOriginalMessage() : String.valueOf(e.getMessage());
    }
}
