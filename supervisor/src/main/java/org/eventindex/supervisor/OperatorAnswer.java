package org.eventindex.supervisor;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import org.eventindex.message.FormatVersion;

import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

/**
 * Supervisor -> operator: the answer to a control message that named a reply queue ({@code reply-to}), sent once per
 * request with the request's {@code correlation-id}. A request delivered again (same correlation id) is answered with
 * the outcome recorded the first time and not applied again.
 * {@code {"type": "answer", "requestId": "...", "outcome": "OK", "dataset": "...", "detail": "..."}}.
 *
 * @param requestId the request's {@code correlation-id} (null when it had none)
 * @param outcome   {@link #OK}, {@link #BAD_REQUEST} (the message itself is invalid: {@code reason} says how) or the
 *                  {@link RejectReason} of a refusal ({@code UNKNOWN_DATASET}, {@code WRONG_STATE}...)
 * @param reason    the {@link RejectReason} name of a refusal, null when OK
 * @param dataset   the dataset the request named, when it could be read
 * @param detail    what was done, or why not and what to do
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record OperatorAnswer(@JsonProperty("type") String type, @JsonProperty("requestId") String requestId,
                             @JsonProperty("outcome") String outcome, @JsonProperty("reason") String reason,
                             @JsonProperty("dataset") String dataset, @JsonProperty("detail") String detail) {
    public static final String TYPE = "answer";
    /**
     * The format version of answers this build writes and reads (decision 0055): written as {@code "v"}; one
     * without it is version 1 (release 0.1.0).
     */
    public static final int FORMAT_VERSION = 1;

    /** {@link #FORMAT_VERSION}, the message's {@code "v"} field. */
    @JsonProperty(FormatVersion.FIELD)
    public int formatVersion() {
        return FORMAT_VERSION;
    }

    public static final String OK = "OK";
    public static final String BAD_REQUEST = "BAD_REQUEST";
    /** Refusals about the message itself rather than the state of the dataset: answered as {@link #BAD_REQUEST}. */
    private static final Set<RejectReason> MALFORMED = EnumSet.of(RejectReason.BAD_JSON, RejectReason.WRONG_TYPE,
            RejectReason.MISSING_FIELD, RejectReason.INVALID_VALUE, RejectReason.INVALID_DATASET_NAME,
            RejectReason.BAD_URL, RejectReason.WRONG_BUCKET, RejectReason.WRONG_ENDPOINT, RejectReason.WRONG_KEY,
            RejectReason.DUPLICATE_GUID, RejectReason.OVERSIZE);

    public OperatorAnswer {
        Objects.requireNonNull(outcome, "outcome is null");
        Objects.requireNonNull(detail, "detail is null");
    }

    static OperatorAnswer ok(String requestId, String dataset, String detail) {
        return new OperatorAnswer(TYPE, requestId, OK, null, dataset, detail);
    }

    static OperatorAnswer refused(String requestId, Rejection r) {
        String outcome = MALFORMED.contains(r.reason()) ? BAD_REQUEST : r.reason().name();
        return new OperatorAnswer(TYPE, requestId, outcome, r.reason().name(), r.dataset(), r.detail());
    }

    /** Whether the supervisor did (or had already done) what was asked. */
    @JsonIgnore
    public boolean isOk() {
        return OK.equals(outcome);
    }
}
