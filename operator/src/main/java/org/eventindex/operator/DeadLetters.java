package org.eventindex.operator;

import org.eventindex.stomp.BrokerSet;
import org.eventindex.stomp.StompBroker;
import org.eventindex.stomp.StompConnection;
import org.eventindex.stomp.StompMessage;
import org.eventindex.stomp.StompSettings;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The brokers' dead-letter queues (each broker has its own), for operators: {@link #list} browses them (nothing is taken off), {@link #redrive}
 * moves messages back to the queue they were dead-lettered from: each is sent there (persistent, with the broker's
 * receipt) and only then acknowledged on the dead-letter queue, so that a failure at any point loses none (a crash
 * between the two leaves a copy in both places, which the supervisor and the consumers treat as a redelivery). A
 * message goes back to its queue on the broker it was dead-lettered on.
 */
final class DeadLetters {
    /** ActiveMQ's shared dead-letter queue. */
    static final String DLQ = "/queue/ActiveMQ.DLQ";
    /** Set by ActiveMQ on a dead-lettered message: the destination it came from. */
    static final String ORIGINAL_DESTINATION = "original-destination";
    /** Set by ActiveMQ on a dead-lettered message: why (e.g. the redelivery policy that was exceeded). */
    static final String FAILURE_CAUSE = "dlqDeliveryFailureCause";
    static final int PREVIEW_CHARS = 80;
    /** Headers of a dead-lettered message that belong to the broker or its delivery, not to the message. */
    private static final Set<String> NOT_COPIED = Set.of("destination", "message-id", "ack", "subscription",
            "redelivered", "timestamp", "expires", "priority", "persistent", "content-length", ORIGINAL_DESTINATION,
            FAILURE_CAUSE, "original-message-id", "JMSXUserID", "reply-to", "receipt", "browser");

    /** One dead-lettered message. */
    record Letter(String messageId, String originalDestination, String reason, Instant time, String preview,
                  String broker) {
        static Letter of(StompMessage m, StompBroker broker) {
            String ts = m.headers().get("timestamp");
            Instant time = null;
            try {
                time = ts == null ? null : Instant.ofEpochMilli(Long.parseLong(ts));
            } catch (NumberFormatException e) {
                // no time
            }
            return new Letter(m.messageId(), m.headers().get(ORIGINAL_DESTINATION), m.headers().get(FAILURE_CAUSE),
                    time, DeadLetters.preview(m.body()), broker.toString());
        }

        /** One line: time, id, broker, original destination, reason, body preview. */
        String line() {
            return (time == null ? "-" : time.toString()) + "  " + messageId + "  on " + broker + "  from "
                    + (originalDestination == null ? "(unknown)" : originalDestination) + "  reason: "
                    + (reason == null ? "(none given)" : reason) + "  body: " + preview;
        }
    }

    /** What a re-drive did. */
    record Redriven(List<Letter> moved, List<Letter> skipped, Set<String> notFound) {
    }

    private DeadLetters() {
    }

    /**
     * Browses the dead-letter queue of every broker (each has its own): every message in it, oldest first per broker;
     * nothing is taken off.
     *
     * @throws IOException naming the broker whose queue could not be read (the list would be incomplete)
     */
    static List<Letter> list(StompSettings settings, String dlq, Duration timeout) throws IOException {
        List<Letter> out = new ArrayList<>();
        for (StompBroker b : brokers(settings)) {
            for (StompMessage m : browse(settings.pinnedTo(b), dlq, timeout, b)) {
                out.add(Letter.of(m, b));
            }
        }
        return out;
    }

    /** The brokers the settings resolve to; every one must resolve (a partial list of dead letters misleads). */
    private static List<StompBroker> brokers(StompSettings settings) throws IOException {
        BrokerSet set = settings.resolveBrokers();
        if (!set.failures().isEmpty()) {
            throw new IOException("brokers not resolved: " + set.failures());
        }
        return set.brokers();
    }

    /**
     * Moves the messages with the given ids (all when {@code ids} is empty) back to their original destination.
     * A message without one is left in the dead-letter queue and reported as skipped.
     */
    static Redriven redrive(StompSettings settings, String dlq, Collection<String> ids, Duration timeout)
            throws IOException {
        List<Letter> moved = new ArrayList<>();
        List<Letter> skipped = new ArrayList<>();
        Set<String> notFound = new LinkedHashSet<>(ids);
        for (StompBroker b : brokers(settings)) {
            Redriven r = redrive(settings.pinnedTo(b), b, dlq, ids, timeout);
            moved.addAll(r.moved());
            skipped.addAll(r.skipped());
            notFound.retainAll(r.notFound());
        }
        return new Redriven(moved, skipped, notFound);
    }

    /** {@link #redrive} on one broker: the messages go back to their queue on that broker. */
    private static Redriven redrive(StompSettings settings, StompBroker broker, String dlq, Collection<String> ids,
                                    Duration timeout) throws IOException {
        Set<String> wanted = new LinkedHashSet<>(ids);
        List<Letter> toMove = new ArrayList<>();
        List<Letter> skipped = new ArrayList<>();
        Set<String> seen = new LinkedHashSet<>();
        for (StompMessage m : browse(settings, dlq, timeout, broker)) {
            Letter l = Letter.of(m, broker);
            seen.add(l.messageId());
            if (!wanted.isEmpty() && !wanted.contains(l.messageId())) {
                continue;
            }
            if (l.originalDestination() == null) {
                skipped.add(l);
            } else {
                toMove.add(l);
            }
        }
        Set<String> notFound = new LinkedHashSet<>(wanted);
        notFound.removeAll(seen);
        List<Letter> moved = new ArrayList<>();
        if (toMove.isEmpty()) {
            return new Redriven(moved, skipped, notFound);
        }
        Map<String, Letter> pending = new LinkedHashMap<>();
        toMove.forEach(l -> pending.put(l.messageId(), l));
        BlockingQueue<Object> received = new LinkedBlockingQueue<>();
        try (StompConnection c = StompConnection.connect(settings)) {
            c.subscribe(dlq, 1, Map.of("selector", selector(pending.keySet())), listener(received));
            long deadline = System.nanoTime() + timeout.toNanos();
            while (!pending.isEmpty()) {
                StompMessage m = next(received, deadline, "re-driving " + pending.size() + " more dead letters");
                Letter l = pending.remove(m.messageId());
                if (l == null) {
                    continue;
                }
                Map<String, String> headers = new LinkedHashMap<>();
                m.headers().forEach((k, v) -> {
                    if (!NOT_COPIED.contains(k)) {
                        headers.put(k, v);
                    }
                });
                c.send(l.originalDestination(), m.body(), headers);
                c.ack(m);
                moved.add(l);
            }
        }
        return new Redriven(moved, skipped, notFound);
    }

    private static List<StompMessage> browse(StompSettings settings, String dlq, Duration timeout, StompBroker broker)
            throws IOException {
        BlockingQueue<Object> received = new LinkedBlockingQueue<>();
        List<StompMessage> out = new ArrayList<>();
        try (StompConnection c = StompConnection.connect(settings)) {
            c.subscribe(dlq, 100, Map.of("browser", "true", "ack", "auto"), listener(received));
            long deadline = System.nanoTime() + timeout.toNanos();
            while (true) {
                StompMessage m = next(received, deadline, "browsing " + dlq + " on broker " + broker);
                if ("end".equals(m.headers().get("browser"))) {
                    return out;
                }
                out.add(m);
            }
        }
    }

    private static StompConnection.Listener listener(BlockingQueue<Object> into) {
        return new StompConnection.Listener() {
            @Override
            public void onMessage(StompMessage m) {
                into.add(m);
            }

            @Override
            public void onError(IOException cause) {
                into.add(cause);
            }
        };
    }

    private static StompMessage next(BlockingQueue<Object> received, long deadline, String what)
            throws IOException {
        try {
            long left = deadline - System.nanoTime();
            Object o = left <= 0 ? null : received.poll(left, TimeUnit.NANOSECONDS);
            if (o == null) {
                throw new IOException("timed out " + what + ": the broker sent nothing more");
            }
            if (o instanceof IOException e) {
                throw new IOException(what + " failed: " + e.getMessage(), e);
            }
            return (StompMessage) o;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while " + what);
        }
    }

    /** A JMS selector matching the message ids (ids are ActiveMQ's, quoted as SQL strings). */
    static String selector(Collection<String> ids) {
        List<String> quoted = new ArrayList<>();
        for (String id : ids) {
            quoted.add("'" + id.replace("'", "''") + "'");
        }
        return "JMSMessageID IN (" + String.join(", ", quoted) + ")";
    }

    /** The first {@link #PREVIEW_CHARS} characters of a body, control characters shown as '.'. */
    static String preview(byte[] body) {
        String s = new String(body, StandardCharsets.UTF_8);
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < s.length() && b.length() < PREVIEW_CHARS; i++) {
            char ch = s.charAt(i);
            b.append(Character.isISOControl(ch) ? '.' : ch);
        }
        return s.length() > PREVIEW_CHARS ? b + "..." : b.toString();
    }
}
