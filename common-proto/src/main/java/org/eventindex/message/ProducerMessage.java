package org.eventindex.message;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * The control + statistics message a producer sends to the supervisor queue after its object is stored:
 * {@code {"type": 1, "ts": <ms>, "id": "<uuid hex>", "data": info}}. Accepted exactly as the experiment's
 * existing producer sends it; unknown fields are ignored.
 *
 * @param id unique per producer run; a re-sent message (broker failover) carries the same id
 */
public record ProducerMessage(
        @JsonProperty("type") int type,
        @JsonProperty("ts") long ts,
        @JsonProperty("id") String id,
        @JsonProperty("data") ProducerInfo data) {

    /** The only message type producers send. */
    public static final int TYPE_OBJECT_STORED = 1;
}
