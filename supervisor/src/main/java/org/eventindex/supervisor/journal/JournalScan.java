package org.eventindex.supervisor.journal;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import org.eventindex.message.FormatVersion;
import org.eventindex.message.Json;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.stream.Collectors;

import static org.eventindex.EventIndexFailure.Kind.FATAL;

/**
 * One pass over a journal file at open: every complete line parsed and checked for order; the entries after the
 * checkpoint's ({@code base}) replayed, those up to it skipped.
 *
 * @param validBytes bytes of complete lines (what follows is a torn last line)
 * @param lastSeq    the last entry's sequence number, 0 for an empty file
 * @param replayed   entries passed to the replay
 * @param skipped    entries the checkpoint already held
 * @param ignored    entries after the checkpoint that this supervisor cannot apply and their writer marked ignorable
 *                   (a newer release's, decision 0055): skipped, counted and logged
 */
record JournalScan(long validBytes, long lastSeq, long replayed, long skipped, long ignored) {
    private static final Logger LOG = LoggerFactory.getLogger(JournalScan.class);
    /** The {@code "type"} name of each event type this supervisor knows. */
    private static final Map<Class<?>, String> TYPE_NAMES = Arrays.stream(
            JournalEvent.class.getAnnotation(JsonSubTypes.class).value())
            .collect(Collectors.toUnmodifiableMap(JsonSubTypes.Type::value, JsonSubTypes.Type::name));
    private static final Set<String> KNOWN_TYPES = Set.copyOf(TYPE_NAMES.values());

    /** A line parsed: its sequence number and its entry, or (entry null) what was skipped as ignorable. */
    private record Line(long seq, JournalEntry entry, String ignored) {
    }

    /** Replays the entries after {@code base} (the checkpoint's); those up to it are checked for order and skipped. */
    static JournalScan scan(JournalFiles files, long base, Consumer<JournalEntry> replay) throws IOException {
        String file = files.describe(Journal.FILE_NAME);
        long offset = 0;
        long validBytes = 0;
        long lastSeq = -1;
        long lineNo = 0;
        long skipped = 0;
        long replayed = 0;
        Map<String, Long> ignored = new TreeMap<>();
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
                Line entry = parse(file, lineNo, validBytes, line.toByteArray());
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
                if (entry.seq() > base && entry.entry() != null) {
                    replay.accept(entry.entry());
                    replayed++;
                } else if (entry.seq() > base) {
                    ignored.merge(entry.ignored(), 1L, Long::sum);
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
        long ignoredEntries = ignored.values().stream().mapToLong(Long::longValue).sum();
        if (ignoredEntries > 0) {
            LOG.warn("journal {}: skipped {} entries that this supervisor (journal format {}) cannot apply and their"
                    + " writer marked ignorable, written by a newer release ({}): {}", file, ignoredEntries,
                    JournalFormat.VERSION, FormatVersion.DOCS, ignored);
        }
        return new JournalScan(validBytes, Math.max(lastSeq, 0), replayed, skipped, ignoredEntries);
    }

    private static Line parse(String file, long lineNo, long offset, byte[] line) throws JournalException {
        JournalEntry entry;
        try {
            entry = Json.read(line, JournalEntry.class);
        } catch (JsonProcessingException | IllegalArgumentException | NullPointerException e) {
            return unreadable(where(file, lineNo, offset), line, e);
        } catch (IOException e) {
            throw new JournalException(FATAL, "journal " + file + " line " + lineNo + " cannot be read: "
                    + e.getMessage(), e);
        }
        if (entry == null) {
            throw new JournalException(FATAL, where(file, lineNo, offset) + " is empty");
        }
        if (entry.version() <= JournalFormat.VERSION) {
            return new Line(entry.seq(), entry, null);
        }
        return cannotApply(where(file, lineNo, offset), entry.seq(), TYPE_NAMES.get(entry.event().getClass()),
                entry.version(), entry.ignorable());
    }

    private static String where(String file, long lineNo, long offset) {
        return "journal " + file + " line " + lineNo + " (byte offset " + offset + ")";
    }

    /**
     * A line Jackson could not map: a newer release's (an event type this supervisor does not know, or a version above
     * its own) is skipped when ignorable and refused with the versions otherwise; anything else is damage.
     */
    private static Line unreadable(String where, byte[] line, Exception e) throws JournalException {
        JsonNode tree;
        try {
            tree = Json.tree(line);
        } catch (IOException | RuntimeException notJson) {
            tree = null;
        }
        if (tree != null && tree.isObject()) {
            int version;
            try {
                version = FormatVersion.of(tree);
            } catch (IllegalArgumentException bad) {
                throw invalid(where, bad);
            }
            JsonNode event = tree.get("event");
            JsonNode type = event == null ? null : event.get("type");
            JsonNode seq = tree.get("seq");
            boolean unknownType = type != null && type.isTextual() && !KNOWN_TYPES.contains(type.asText());
            if ((version > JournalFormat.VERSION || unknownType) && seq != null && seq.canConvertToLong()
                    && seq.asLong() >= 1) {
                return cannotApply(where, seq.asLong(), type == null ? "none" : type.asText(), version,
                        tree.path("ignorable").asBoolean(false));
            }
        }
        throw invalid(where, e);
    }

    private static Line cannotApply(String where, long seq, String type, int version, boolean ignorable)
            throws JournalException {
        if (ignorable) {
            return new Line(seq, null, type + " (format " + version + ")");
        }
        throw new JournalException(FATAL, JournalFormat.newer(where + ", entry " + seq + ", event type " + type
                + ", not marked ignorable,", version));
    }

    private static JournalException invalid(String where, Exception e) {
        return new JournalException(FATAL, where + " is not a valid entry: " + message(e) + ". Only a torn last line is"
                + " repaired automatically; restore the file from a backup or move it aside and re-register the"
                + " datasets.", e);
    }

    private static String message(Exception e) {
        return e instanceof JsonProcessingException j ? j.getOriginalMessage() : String.valueOf(e.getMessage());
    }
}
