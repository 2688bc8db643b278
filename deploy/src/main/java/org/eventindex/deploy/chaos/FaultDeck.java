package org.eventindex.deploy.chaos;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.List;
import java.util.Objects;
import java.util.Random;

/**
 * The faults of a run drawn as from a deck: every kind once, in an order shuffled with the run's seeded
 * {@link Random}, before any kind comes again; so a run of as many faults as there are kinds draws every kind, and a
 * seed names one order.
 */
final class FaultDeck {
    private final Random random;
    private final Deque<Fault> deck = new ArrayDeque<>();

    FaultDeck(Random random) {
        this.random = Objects.requireNonNull(random, "random is null");
    }

    /** The next {@code n} faults among {@code available} (kinds no longer available are dropped from the deck). */
    List<Fault> draw(int n, List<Fault> available) {
        if (available.isEmpty() && n > 0) {
            throw new IllegalArgumentException("no fault kind to draw from");
        }
        deck.removeIf(f -> !available.contains(f));
        List<Fault> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            if (deck.isEmpty()) {
                List<Fault> shuffled = new ArrayList<>(available);
                Collections.shuffle(shuffled, random);
                deck.addAll(shuffled);
            }
            out.add(deck.removeFirst());
        }
        return out;
    }
}
