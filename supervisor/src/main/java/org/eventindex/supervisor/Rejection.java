package org.eventindex.supervisor;

import java.util.Objects;

/**
 * A refused message: the reason, a detail naming the field, dataset or object, and what identifies the message.
 *
 * @param messageId the JSON {@code id} if the message had one, else the broker's message-id (may be null)
 * @param dataset   the dataset the message named, when it could be read (may be null)
 */
record Rejection(RejectReason reason, String detail, String messageId, String dataset) {
    Rejection {
        Objects.requireNonNull(reason, "reason is null");
        Objects.requireNonNull(detail, "detail is null");
    }
}
