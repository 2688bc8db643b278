package org.eventindex.deploy.differential;

import com.fasterxml.jackson.databind.JsonNode;
import org.eventindex.message.Json;
import org.eventindex.message.ProducerMessage;
import org.eventindex.testing.ProducerProcess;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static java.util.Objects.requireNonNull;

/**
 * What the real producer jar said of one SPB file in a dry run ({@code --dry-run --json}): accepted (exit 0) with the
 * object key it chose, the SHA-256 of the file and the message it would send, or refused (exit 2) with its one line on
 * stderr. Any other exit status is neither and is reported as such.
 *
 * @param exitCode the process's exit status
 * @param key      the object key (accepted only)
 * @param sha256   hex SHA-256 of the file, the object's {@code sha256} user metadata (accepted only)
 * @param message  the message the producer would send (accepted only)
 * @param stderr   what it wrote on stderr (the reason of a refusal)
 * @param took     wall time of the process
 */
public record ProducerVerdict(int exitCode, String key, String sha256, ProducerMessage message, String stderr,
                              Duration took) {
    /** Where an SPB refusal's own text starts, in the producer's line and in the consumer's reason alike. */
    public static final String SPB_REASON = "malformed SPB at uncompressed offset ";
    private static final Duration DEADLINE = Duration.ofMinutes(2);

    public boolean accepted() {
        return exitCode == 0;
    }

    public boolean refused() {
        return exitCode == 2;
    }

    /** The refusal from {@link #SPB_REASON} to the end of its line (offset, problem and detail), or null. */
    public String spbReason() {
        if (stderr == null) {
            return null;
        }
        int at = stderr.indexOf(SPB_REASON);
        if (at < 0) {
            return null;
        }
        int end = stderr.indexOf('\n', at);
        return stderr.substring(at, end < 0 ? stderr.length() : end).stripTrailing();
    }

    /** The problem of an SPB refusal ({@code OVERSIZE}, {@code BAD_CONTENT}...), or null. */
    public String problem() {
        String r = spbReason();
        if (r == null) {
            return null;
        }
        String rest = r.substring(r.indexOf(": ") + 2);
        int colon = rest.indexOf(':');
        return colon < 0 ? rest : rest.substring(0, colon);
    }

    /** The verdict in a few words, for progress lines. */
    public String summary() {
        if (accepted()) {
            return "accepted";
        }
        if (refused()) {
            return "refused (" + (problem() == null ? "no SPB reason" : problem()) + ")";
        }
        return "exit " + exitCode;
    }

    /**
     * Runs {@code java -jar producerJar FILE --dry-run --json --s3-endpoint E --bucket B} and waits for it. The S3
     * endpoint and bucket only make the URL in the message; a dry run contacts nothing. stdout and stderr go to files
     * next to the SPB file ({@code .out}, {@code .err}), kept for reproducing a case.
     */
    public static ProducerVerdict run(Path producerJar, Path spbFile, URI s3Endpoint, String bucket)
            throws IOException, InterruptedException {
        requireNonNull(producerJar, "producerJar is null");
        Path out = spbFile.resolveSibling(spbFile.getFileName() + ".out");
        Path err = spbFile.resolveSibling(spbFile.getFileName() + ".err");
        ProducerProcess.Result r = ProducerProcess.run(ProducerProcess.builder(producerJar, List.of(),
                List.of(spbFile.toString(), "--dry-run", "--json", "--s3-endpoint", s3Endpoint.toString(),
                        "--bucket", bucket), Map.of()), out, err, DEADLINE);
        Duration took = r.took();
        if (r.exitCode() == -1) {
            return new ProducerVerdict(-1, null, null, null, "the producer did not exit within " + DEADLINE, took);
        }
        String stderr = r.stderr();
        if (r.exitCode() != 0) {
            return new ProducerVerdict(r.exitCode(), null, null, null, stderr, took);
        }
        byte[] json = Files.readAllBytes(out);
        try {
            JsonNode result = Json.tree(json);
            ProducerMessage message = Json.mapper().treeToValue(result.get("message"), ProducerMessage.class);
            return new ProducerVerdict(0, result.get("key").asText(), result.get("sha256").asText(), message, stderr,
                    took);
        } catch (IOException | RuntimeException e) {
            return new ProducerVerdict(-2, null, null, null, "exit 0 but its --json output cannot be read (" + e
                    + "): " + new String(json, StandardCharsets.UTF_8), took);
        }
    }
}
