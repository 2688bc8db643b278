package org.eventindex.kudu;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LoaderSettingsTest {

    @Test
    void oneSessionKeepsItsBufferAndTabletsShareTheBudget() {
        LoaderSettings d = LoaderSettings.defaults();
        assertEquals(LoaderSettings.DEFAULT_BUDGET_ROWS, d.bufferBudgetRows());
        // one session: its two buffers of 10,000 are the whole budget, as before the budget
        assertEquals(10_000, d.sessionBufferRows());
        // several sessions: the rows waiting for their tablet's batch share the budget; EVENTS and DUPLICATEDEVENTS
        // of 64 buckets each give every tablet the 156-row batch a session's flush gave it (decision 0078)
        assertEquals(156, d.tabletBatchRows(128));
        // never a batch the Kudu client encodes into a humongous array, nor more than the session buffer, nor none
        assertEquals(LoaderSettings.MAX_TABLET_BATCH_ROWS, d.tabletBatchRows(4));
        assertEquals(100, d.withBufferRows(100).tabletBatchRows(4));
        assertEquals(10_000, d.withBufferBudgetRows(200_000).sessionBufferRows());
        assertEquals(1, d.withBufferBudgetRows(200).tabletBatchRows(256));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> d.tabletBatchRows(0));
        assertTrue(e.getMessage().contains("tablets"), e.getMessage());
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
