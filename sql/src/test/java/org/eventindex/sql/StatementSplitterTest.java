package org.eventindex.sql;

import org.eventindex.sql.StatementSplitter.Statement;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class StatementSplitterTest {

    @Test
    void splitsOnSemicolonsOutsideQuotesAndComments() {
        List<Statement> s = StatementSplitter.split("""
                SELECT 'a;b', "c;d", `e;f` FROM t; -- not; a statement
                /* block; comment */ SELECT 2;
                SELECT 'it''s; fine', 'back\\'slash;'
                """);
        assertEquals(List.of("SELECT 'a;b', \"c;d\", `e;f` FROM t", "/* block; comment */ SELECT 2",
                "SELECT 'it''s; fine', 'back\\'slash;'"), s.stream().map(Statement::sql).toList());
    }

    @Test
    void commentLinesAboveAStatementAreItsCommentAndLabel() {
        List<Statement> s = StatementSplitter.split("""
                -- file header

                -- Q1. Event picking: run + event
                --     second line
                SELECT 1;

                -- Q12b. Other
                SELECT 2
                ;
                -- trailing comment only;
                """);
        assertEquals(2, s.size());
        assertEquals("Q1. Event picking: run + event\nsecond line", s.get(0).comment());
        assertEquals("Q1", s.get(0).label());
        assertEquals(5, s.get(0).line());
        assertEquals("SELECT 1", s.get(0).sql());
        assertEquals("Q12b", s.get(1).label());
        assertEquals(8, s.get(1).line());
    }

    @Test
    void statementWithoutLabel() {
        Statement s = StatementSplitter.split("-- a query\nSELECT 1").get(0);
        assertNull(s.label());
        assertEquals("SELECT 1", s.sql());
    }

    @Test
    void feedsLineByLineAndKeepsPendingText() {
        StatementSplitter sp = new StatementSplitter();
        assertTrue(sp.feed("SELECT 'x\n").isEmpty());
        assertTrue(sp.insideQuoteOrComment());
        assertTrue(sp.feed("y;' AS v\n").isEmpty());
        assertTrue(sp.hasPending());
        List<Statement> done = sp.feed("FROM t; SELECT 2;\n");
        assertEquals(List.of("SELECT 'x\ny;' AS v\nFROM t", "SELECT 2"), done.stream().map(Statement::sql).toList());
        assertFalse(sp.hasPending());
        assertTrue(sp.feed("-- only a comment\n").isEmpty());
        assertFalse(sp.hasPending());
        assertTrue(sp.finish().isEmpty());
        sp.feed("SELECT 3");
        assertEquals("SELECT 3", sp.finish().orElseThrow().sql());
        sp.feed("SELECT 'unfinished");
        sp.reset();
        assertFalse(sp.hasPending() || sp.insideQuoteOrComment());
    }

    @Test
    void emptyStatementsAreDropped() {
        assertEquals(List.of("SELECT 1"), StatementSplitter.split(";;  ;\nSELECT 1;;").stream()
                .map(Statement::sql).toList());
    }
}
