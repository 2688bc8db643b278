package org.eventindex.lookup;

import java.util.Locale;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

import static java.util.Objects.requireNonNull;

/**
 * The work one user may give the lookup service: requests in progress at once, and events looked up per minute (a
 * token bucket holding a minute's worth, refilled continuously, so a burst of a minute's events is allowed after a
 * quiet minute). A user is the authenticated principal of the request when there is one, else the client address.
 * Thread-safe.
 */
final class UserQuotas {
    /** Users kept before idle ones (nothing in progress, bucket full) are forgotten. */
    static final int MAX_USERS = 10_000;

    /**
     * A refusal: HTTP 429 with {@code Retry-After: retryAfterSeconds}. Unchecked, as the server's other refusals
     * ({@link IllegalArgumentException}: 400), so the handlers keep their signatures.
     */
    static final class Exceeded extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final long retryAfterSeconds;

        Exceeded(String message, long retryAfterSeconds) {
            super(message);
            this.retryAfterSeconds = retryAfterSeconds;
        }

        long retryAfterSeconds() {
            return retryAfterSeconds;
        }
    }

    /** Held while a request is in progress; closing it ends the request for its user. */
    interface Permit extends AutoCloseable {
        @Override
        void close();
    }

    private static final class User {
        int inProgress;
        double tokens;
        long refilledAt;
    }

    private final int maxConcurrent;
    private final int eventsPerMinute;
    private final LongSupplier nanoTime;
    private final ConcurrentHashMap<String, User> users = new ConcurrentHashMap<>();

    /**
     * @param maxConcurrent   requests one user may have in progress
     * @param eventsPerMinute events one user may look up per minute
     */
    UserQuotas(int maxConcurrent, int eventsPerMinute, LongSupplier nanoTime) {
        if (maxConcurrent < 1 || eventsPerMinute < 1) {
            throw new IllegalArgumentException("user limits must be at least 1: " + maxConcurrent + " requests, "
                    + eventsPerMinute + " events per minute");
        }
        this.maxConcurrent = maxConcurrent;
        this.eventsPerMinute = eventsPerMinute;
        this.nanoTime = requireNonNull(nanoTime, "nanoTime is null");
    }

    /** Starts a request of {@code user}; refused when it already has {@code maxConcurrent} in progress. */
    Permit enter(String user) {
        User u = user(user);
        synchronized (u) {
            if (u.inProgress >= maxConcurrent) {
                throw new Exceeded("user " + user + " has " + u.inProgress + " lookup requests in progress, the"
                        + " limit per user (--max-user-concurrent " + maxConcurrent + "); retry when one is answered",
                        1);
            }
            u.inProgress++;
        }
        return () -> {
            synchronized (u) {
                u.inProgress--;
            }
        };
    }

    /** Takes {@code events} from {@code user}'s minute; refused (nothing taken) when not that many are left. */
    void charge(String user, int events) {
        User u = user(user);
        synchronized (u) {
            long now = nanoTime.getAsLong();
            double perNano = eventsPerMinute / 60e9;
            u.tokens = Math.min(eventsPerMinute, u.tokens + (now - u.refilledAt) * perNano);
            u.refilledAt = now;
            if (u.tokens < events) {
                long wait = (long) Math.ceil((events - u.tokens) / perNano / 1e9);
                throw new Exceeded(String.format(Locale.ROOT, "user %s asked for %d events with %d left of its %d"
                        + " per minute (--max-user-events-per-minute); retry in %d s", user, events,
                        (long) u.tokens, eventsPerMinute, wait), Math.max(1, wait));
            }
            u.tokens -= events;
        }
    }

    private User user(String name) {
        if (users.size() >= MAX_USERS) {
            users.values().removeIf(u -> {
                synchronized (u) {
                    return u.inProgress == 0 && u.tokens >= eventsPerMinute;
                }
            });
        }
        return users.computeIfAbsent(name, n -> {
            User u = new User();
            u.tokens = eventsPerMinute;
            u.refilledAt = nanoTime.getAsLong();
            return u;
        });
    }
}
