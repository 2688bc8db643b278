package org.eventindex.sql;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.eventindex.sql.SqlFixture.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The SQL shell on the real Kudu of {@link SqlFixture}: output formats, errors that do not stop it, the CLI. */
@ExtendWith(SqlFixture.Resolver.class)
class SqlShellIT {
    private static SqlFixture fixture;

    @BeforeAll
    static void start(SqlFixture shared) {
        fixture = shared;
        fixture.spark().sql("USE " + EventIndexSql.DATABASE);
    }

    private record Out(int status, String out, String err) {
    }

    private static Out interactive(String input, boolean csv) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        SqlShell shell = new SqlShell(fixture.spark(), new ImpalaToSpark(Map.of(), null),
                new SqlShell.Settings(csv, 3, false), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        int status = shell.interactive(new BufferedReader(new StringReader(input)), false);
        return new Out(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private static void noStackTrace(String err) {
        assertFalse(err.contains("\tat ") || err.contains("Exception in thread") || err.contains(".scala:"), err);
    }

    @Test
    void errorsArePrintedAndTheShellGoesOn() throws Exception {
        Out r = interactive("""
                SELECT count(*) AS n FROM datasets;
                SELEC oops;
                SELECT * FROM no_such_table;
                SELECT no_such_column FROM eventindex.events;
                SELECT ${var:run};
                INSERT INTO eventindex.eventsoverlap VALUES (1, 2, 3);
                SELECT dataset
                  FROM loaded_datasets   -- a comment; not the end
                 WHERE dataset LIKE 'mc16%'
                 ORDER BY dataset;
                quit
                SELECT 'never run';
                """, false);
        assertEquals(1, r.status(), r.err());
        assertEquals("""
                +---+
                | n |
                +---+
                | 7 |
                +---+
                +---------------------------------------------------------------------------+
                | dataset                                                                   |
                +---------------------------------------------------------------------------+
                | mc16_13TeV.361106.PowhegPythia8_Zee.merge.AOD.e3601_r10201_tid22222222_00 |
                | mc16_13TeV.361106.PowhegPythia8_Zee.merge.AOD.e3601_r10201_tid22222222_01 |
                +---------------------------------------------------------------------------+
                """, r.out());
        List<String> errors = r.err().lines().filter(l -> l.startsWith("ERROR: ")).toList();
        assertEquals(5, errors.size(), r.err());
        assertTrue(errors.get(0).contains("PARSE_SYNTAX_ERROR"), r.err());
        assertTrue(errors.get(1).contains("TABLE_OR_VIEW_NOT_FOUND") && errors.get(1).contains("no_such_table"),
                r.err());
        assertTrue(errors.get(2).contains("no_such_column"), r.err());
        assertEquals("ERROR: variable run is not set (give --var NAME=VALUE)", errors.get(3));
        assertTrue(errors.get(4).startsWith("ERROR: INSERT is refused"), r.err());
        assertFalse(r.err().contains("'never run'"));
        noStackTrace(r.err());
        // nothing was written
        assertEquals(List.of(List.of(0L)), fixture.rows(
                "SELECT count(*) FROM eventsoverlap WHERE ds1 = 1"));
    }

    @Test
    void csvVariablesAndRowLimit() throws Exception {
        Out r = interactive("""
                SET VAR:run=327700;
                SELECT d.dataset, e.eventnumber, e.db FROM loaded_datasets d JOIN events e
                  ON e.dspid = d.dspid AND e.rgid = d.rgid
                 WHERE d.runnumber = ${var:run} AND e.eventnumber IN (3, 4)
                 ORDER BY e.eventnumber;
                SELECT eventnumber FROM mcevents ORDER BY eventnumber
                """, true);
        assertEquals(0, r.status(), r.err());
        assertEquals("dataset,eventnumber,db\n"
                + OTHER_RUN + ",3," + guid(0xD1) + "\n"
                + OTHER_RUN + ",4," + guid(0xD1) + "\n"
                + "eventnumber\n7\n14\n21\n", r.out());
        assertTrue(r.err().contains("more rows were left out (--max-rows 3)"), r.err());
    }

    @Test
    void commandLineRunsStatementsAgainstKudu() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = SqlMain.run(new String[]{"--kudu-master", fixture.masters(), "--prefix", PREFIX, "--csv",
                        "--var", "project=data17_13TeV", "-e",
                        "SELECT count(*) AS loaded FROM eventindex.loaded_datasets WHERE project = '${var:project}';"
                                + " SHOW TABLES IN eventindex"},
                new ByteArrayInputStream(new byte[0]), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        String text = out.toString(StandardCharsets.UTF_8);
        assertEquals(0, status, err.toString(StandardCharsets.UTF_8));
        assertTrue(text.startsWith("loaded\n4\nnamespace,tableName,isTemporary\n"), text);
        for (String table : List.of("datasets", "events", "mcevents", "duplicatedevents", "eventsoverlap",
                "triggercount", "loaded_datasets")) {
            assertTrue(text.contains("eventindex," + table + ",false\n"), table + " in " + text);
        }
        // the session belongs to the caller and is still usable
        assertEquals(List.of(List.of(7L)), fixture.rows(
                "SELECT count(*) FROM eventindex.datasets"));
    }

    @Test
    void commandLineStopsAtTheFirstFailingStatementOfAFile() throws Exception {
        Path file = Files.createTempFile("eventindex-sql-", ".sql");
        try {
            Files.writeString(file, "SELECT 1 AS one;\n\n-- broken\nSELECT * FROM nope;\nSELECT 2 AS two;\n");
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            int status = SqlMain.run(new String[]{"--masters", fixture.masters(), "--prefix", PREFIX, "-f",
                    file.toString()}, new ByteArrayInputStream(new byte[0]), new PrintStream(out, true),
                    new PrintStream(err, true));
            String e = err.toString();
            assertEquals(1, status, e);
            assertTrue(out.toString().contains("| one |") && !out.toString().contains("two"), out.toString());
            assertTrue(e.contains("TABLE_OR_VIEW_NOT_FOUND") && e.contains("(stopped at the statement on line 4)"), e);
            noStackTrace(e);
        } finally {
            Files.deleteIfExists(file);
        }
    }

    @Test
    void unreachableMasterAndMissingTablesAreReportedBeforeSparkStarts() throws Exception {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        long t0 = System.nanoTime();
        int status = SqlMain.run(new String[]{"--kudu-master", "127.0.0.1:1", "--timeout-seconds", "2", "-e",
                "SELECT 1"}, new ByteArrayInputStream(new byte[0]), new PrintStream(new ByteArrayOutputStream()),
                new PrintStream(err, true));
        assertEquals(1, status);
        String e = err.toString();
        assertEquals("sql: Kudu masters 127.0.0.1:1 unreachable after 2 s (connection refused)", e.strip());
        assertEquals(1, e.lines().count(), e);
        assertTrue(System.nanoTime() - t0 < 30_000_000_000L, "gave up within the timeout");

        err.reset();
        status = SqlMain.run(new String[]{"--kudu-master", fixture.masters(), "--prefix", "nope_", "-e", "SELECT 1"},
                new ByteArrayInputStream(new byte[0]), new PrintStream(new ByteArrayOutputStream()),
                new PrintStream(err, true));
        assertEquals(1, status);
        assertTrue(err.toString().contains("has none of the EventIndex tables (nope_DATASETS"), err.toString());
        assertTrue(err.toString().contains("sq_DATASETS"), "lists the tables that are there: " + err);
    }

    @Test
    void usageErrors() throws Exception {
        for (String[] args : List.of(new String[]{"-e", "SELECT 1"}, new String[]{"--kudu-master"},
                new String[]{"--kudu-master", "m:1", "--var", "x='1'"}, new String[]{"--kudu-master", "m:1", "SELECT"},
                new String[]{"--kudu-master", "m:1", "-e", "x", "-f", "y"}, new String[]{"--bogus"})) {
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            assertEquals(2, SqlMain.run(args, new ByteArrayInputStream(new byte[0]),
                    new PrintStream(new ByteArrayOutputStream()), new PrintStream(err, true)), String.join(" ", args));
            assertTrue(err.toString().startsWith("eventindex sql: ")
                    && err.toString().contains("Run 'eventindex sql --help' for the options."), err.toString());
        }
    }
}
