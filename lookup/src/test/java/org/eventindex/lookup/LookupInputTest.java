package org.eventindex.lookup;

import org.junit.jupiter.api.Test;

import java.io.StringReader;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LookupInputTest {
    @Test
    void readsClientLinesAndNamesEveryMalformedOne() throws Exception {
        LookupInput in = LookupInput.read(new StringReader("""
                # comment
                00327636 000000005
                  327636\t18446744073709551615 \s

                327636
                x 5
                327636 -5
                2147483648 1
                327636 18446744073709551616
                """), "picks.txt", 0);
        assertEquals(List.of(new EventKey(327636, 5), new EventKey(327636, -1L)), in.keys());
        assertEquals(List.of(
                "picks.txt:5: '327636': expected 2 fields 'run event', found 1",
                "picks.txt:6: 'x 5': run 'x' is not a decimal number",
                "picks.txt:7: '327636 -5': event '-5' is not a decimal number",
                "picks.txt:8: '2147483648 1': run 2147483648 is above 2147483647",
                "picks.txt:9: '327636 18446744073709551616': event 18446744073709551616 is above 2^64-1"),
                in.errors().stream().map(LookupInput.LineError::message).toList());
    }

    @Test
    void textFormIsTheClientsWithUnsignedEvents() {
        assertEquals("00327636 000000005", new EventKey(327636, 5).text());
        assertEquals("00327636 18446744073709551615", new EventKey(327636, -1L).text());
    }

    @Test
    void tooManyLinesIsRefused() {
        LookupInput.TooManyLinesException e = assertThrows(LookupInput.TooManyLinesException.class,
                () -> LookupInput.read(new StringReader("1 1\n# c\n2 2\n3 3\n"), "request", 2));
        assertEquals("request has more than 2 lookup lines", e.getMessage());
    }

    @Test
    void filterGlobsMatchNamesAndAmiTags() {
        LoadedDataset d = new LoadedDataset("data17_13TeV.00327636.physics_Main.merge.AOD.f838_m1824_tid12345678_00",
                "data17_13TeV", "AOD", "f838_m1824_tid12345678_00", 1, 1);
        assertTrue(new LookupFilter(Set.of(), null, "f838_m1824", null).acceptsDataset(d), "suffix ignored");
        assertTrue(new LookupFilter(Set.of(), "data17_13TeV", "f8??_*", "*.physics_Main.*").acceptsDataset(d));
        assertFalse(new LookupFilter(Set.of(), null, "f838", null).acceptsDataset(d), "a glob matches whole");
        assertFalse(new LookupFilter(Set.of(), null, null, "*.ESD.*").acceptsDataset(d));
        assertFalse(new LookupFilter(Set.of(), null, null, "data17_13TeV.00327636.physics.Main*").acceptsDataset(d),
                "'.' is literal");
        assertThrows(IllegalArgumentException.class, () -> new LookupFilter(Set.of(), null, "", null));
    }
}
