package org.eventindex.deploy.chaos;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

final class FaultDeckTest {
    private static final List<Fault> ALL = List.of(Fault.values());

    @Test
    void everyKindOnceBeforeAnyKindAgainAndOverTheWholeRun() {
        FaultDeck deck = new FaultDeck(new Random(50));
        List<Fault> drawn = new ArrayList<>();
        for (int round = 0; round < Math.max(50, 2 * ALL.size()); round++) {
            drawn.addAll(deck.draw(1, ALL));
        }
        assertEquals(EnumSet.allOf(Fault.class), EnumSet.copyOf(drawn.subList(0, ALL.size())),
                "the first " + ALL.size() + " draws: " + drawn);
        assertEquals(EnumSet.allOf(Fault.class), EnumSet.copyOf(drawn.subList(ALL.size(), 2 * ALL.size())));
        assertEquals(EnumSet.allOf(Fault.class), EnumSet.copyOf(drawn.subList(0, 50)), "50 rounds draw every kind");
    }

    @Test
    void aSeedNamesOneOrderAndAnotherSeedAnother() {
        assertEquals(new FaultDeck(new Random(7)).draw(40, ALL), new FaultDeck(new Random(7)).draw(40, ALL));
        assertNotEquals(new FaultDeck(new Random(7)).draw(40, ALL), new FaultDeck(new Random(8)).draw(40, ALL));
    }

    @Test
    void drawsOnlyAmongTheAvailableKindsAlsoWhenTheyChange() {
        FaultDeck deck = new FaultDeck(new Random(1));
        deck.draw(2, ALL);
        List<Fault> some = List.of(Fault.KILL_BROKER, Fault.PAUSE_BROKER, Fault.KILL_ALL_BROKERS);
        List<Fault> drawn = deck.draw(6, some);
        assertEquals(Set.copyOf(some), Set.copyOf(drawn), drawn.toString());
        assertThrows(IllegalArgumentException.class, () -> deck.draw(1, List.of()));
    }
}
