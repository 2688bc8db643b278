package org.eventindex.kudu;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LoaderSettingsTest {

    @Test
    void theSessionsShareTheBudgetAndOneSessionKeepsItsBuffer() {
        LoaderSettings d = LoaderSettings.defaults();
        assertEquals(LoaderSettings.DEFAULT_BUDGET_ROWS, d.bufferBudgetRows());
        // one session: its two buffers of 10,000 are the whole budget, as before the budget
        assertEquals(10_000, d.sessionBufferRows(1));
        // N sessions, each writing 1/N of the tablets, buffer 1/N each: the same rows per tablet per flush
        assertEquals(5_000, d.sessionBufferRows(2));
        assertEquals(2_500, d.sessionBufferRows(4));
        // never more than the per-session buffer, never none
        assertEquals(10_000, d.withBufferBudgetRows(200_000).sessionBufferRows(1));
        assertEquals(1, d.withBufferBudgetRows(200).sessionBufferRows(64));
    }

    @Test
    void aBudgetOutOfRangeIsRefusedNamingIt() {
        for (int bad : new int[] {LoaderSettings.MIN_BUDGET_ROWS - 1, LoaderSettings.MAX_BUDGET_ROWS + 1}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> LoaderSettings.defaults().withBufferBudgetRows(bad));
            assertTrue(e.getMessage().contains("bufferBudgetRows") && e.getMessage().contains("" + bad),
                    e.getMessage());
        }
    }
}
