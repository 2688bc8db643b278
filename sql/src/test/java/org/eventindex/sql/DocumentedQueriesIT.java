package org.eventindex.sql;

import org.eventindex.sql.SqlFixture.Ds;
import org.eventindex.sql.SqlFixture.Ev;
import org.eventindex.sql.StatementSplitter.Statement;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

import static org.eventindex.sql.SqlFixture.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every query of deploy/impala/queries.sql, taken from the file itself (by its {@code -- Qn.} label) and translated
 * only by {@link ImpalaToSpark} (variables by name), runs through Spark SQL with the kudu-spark connector against
 * the real Kudu of {@link SqlFixture}, over the tables and view registered by create-tables.sql; the rows must equal
 * a brute-force reference computed here from the generated events.
 */
@ExtendWith(SqlFixture.Resolver.class)
class DocumentedQueriesIT {
    /** The queries this class checks; the file must hold exactly these. */
    private static final List<String> CHECKED = List.of("Q1", "Q2", "Q3", "Q4", "Q5", "Q6");

    private static SqlFixture fixture;
    private static Map<String, Statement> queries;

    @BeforeAll
    static void start(SqlFixture shared) {
        fixture = shared;
        queries = new LinkedHashMap<>();
        for (Statement s : EventIndexSql.statements(EventIndexSql.QUERIES)) {
            queries.put(s.label() == null ? "line " + s.line() : s.label(), s);
        }
    }

    @Test
    void everyDocumentedQueryIsChecked() {
        assertEquals(CHECKED, List.copyOf(queries.keySet()), "queries.sql holds a query this test does not check,"
                + " or lost one");
    }

    // ---------------------------------------------------------------------------------------------------------- Q1

    @Test
    void q1EventPickingFindsEveryLoadedDatasetOfTheRun() {
        // in AOD_T0 (epoch 1) and ESD (epoch 2)
        checkQ1(RUN, 350, 2);
        // duplicated in AOD_T0: the first occurrence only
        checkQ1(RUN, 55, 1);
        // AOD_T0 only, and also in the LOADING dataset, which must not show
        checkQ1(RUN, 5, 1);
        // only in the LOADING dataset; absent
        checkQ1(RUN, 2001, 0);
        checkQ1(RUN, 999_999, 0);
        // another run (epoch 3) with the same event numbers
        checkQ1(OTHER, 5, 1);
        // simulation: by dataset number, from MCEVENTS, both MC datasets (epochs 1 and 3) for a shared event;
        // never by the conditions run
        checkQ1(MC_NUMBER, 707, 2);
        checkQ1(MC_CONDITIONS_RUN, 14, 0);
    }

    private void checkQ1(int run, long event, int datasets) {
        List<List<Object>> expected = new ArrayList<>();
        for (Ds ds : loaded()) {
            if (ds.parsed().runNumber() != run) {
                continue;
            }
            Ev x = firstOccurrences(ds).get(key(ds.rows().get(0).simulation() ? ds.rows().get(0).run() : run,
                    event));
            if (x != null) {
                expected.add(q1Row(ds, x));
            }
        }
        assertEquals(datasets, expected.size(), "reference of Q1 for " + run + " " + event);
        List<List<Object>> actual = run("Q1", Map.of("run", run, "event", event));
        assertEquals(sorted(expected), sorted(actual), "Q1 run " + run + " event " + event);
    }

    private static List<Object> q1Row(Ds ds, Ev x) {
        String own = ds.parsed().dataType();
        String tk = token(x.file(), x.event());
        String dbraw = x.raw();
        String tkraw = x.raw() == null ? null : token(x.raw(), x.event());
        String dbesd = own.equals("ESD") ? x.file() : x.esd();
        String tkesd = own.equals("ESD") ? tk : x.esd() == null ? null : token(x.esd(), x.event());
        String dbaod = own.equals("AOD") ? x.file() : null;
        String tkaod = own.equals("AOD") ? tk : null;
        return Arrays.asList(ds.name(), (long) x.run(), x.event(), x.file(), tk, dbraw, tkraw, dbesd, tkesd, dbaod,
                tkaod);
    }

    // ---------------------------------------------------------------------------------------------------------- Q2

    @Test
    void q2EventsWithAnL1ItemSetInEveryWordAndOnlyTav() {
        // items in words l1w16, l1w17, l1w20 and l1w23 (511: bit 63, a negative word)
        for (int item : TAV_ITEMS) {
            assertTrue(checkQ2(AOD_T0, item) > 0, "item " + item);
        }
        // in TBP of every event, never after veto
        assertEquals(0, checkQ2(AOD_T0, 200));
        // simulation (MCEVENTS), another data type
        assertTrue(checkQ2(MC_A, 511) > 0);
        assertTrue(checkQ2(ESD, 70) > 0);
        // not LOADED; no such dataset
        assertEquals(0, checkQ2(LOADING, 5));
        assertEquals(List.of(), run("Q2", Map.of("dataset", "data17_13TeV.00327636.physics_Main.merge.AOD.x1",
                "item", 5)));
    }

    private int checkQ2(String dataset, int item) {
        Ds ds = fixture.dataset(dataset);
        List<List<Object>> expected = new ArrayList<>();
        if (!ds.loading()) {
            for (Ev x : firstOccurrences(ds).values()) {
                if (x.tav().get(item)) {
                    expected.add(Arrays.asList((long) x.run(), x.event(), (long) x.lumiblock(), x.file(),
                            token(x.file(), x.event())));
                }
            }
        }
        expected.sort(Comparator.comparingLong(r -> (Long) r.get(1)));
        assertEquals(expected, run("Q2", Map.of("dataset", dataset, "item", item)), "Q2 " + dataset + " item "
                + item);
        return expected.size();
    }

    // ---------------------------------------------------------------------------------------------------------- Q3

    @Test
    void q3OverlapsWithLoadedDatasetsOnly() {
        assertEquals(1, checkQ3(AOD_T0), "ESD only: LOADING's overlap rows are still in EVENTSOVERLAP");
        // AOD_T1 (200 shared) before AOD_T0 (101)
        assertEquals(2, checkQ3(ESD));
        assertEquals(1, checkQ3(AOD_T1));
        assertEquals(1, checkQ3(MC_A));
        assertEquals(0, checkQ3(OTHER_RUN));
        assertEquals(0, checkQ3(LOADING));
    }

    private int checkQ3(String dataset) {
        Ds a = fixture.dataset(dataset);
        List<List<Object>> expected = new ArrayList<>();
        if (!a.loading()) {
            Set<List<Long>> keysA = firstOccurrences(a).keySet();
            for (Ds b : loaded()) {
                if (b == a || b.parsed().runNumber() != a.parsed().runNumber()
                        || b.rows().get(0).simulation() != a.rows().get(0).simulation()) {
                    continue;
                }
                long shared = firstOccurrences(b).keySet().stream().filter(keysA::contains).count();
                if (shared > 0) {
                    expected.add(Arrays.asList(a.name(), b.name(), shared, (double) shared / unique(a),
                            (double) shared / unique(b)));
                }
            }
        }
        expected.sort(Comparator.comparing((List<Object> r) -> -(Long) r.get(2))
                .thenComparing(r -> (String) r.get(1)));
        assertEquals(expected, run("Q3", Map.of("dataset", dataset)), "Q3 " + dataset);
        return expected.size();
    }

    // ---------------------------------------------------------------------------------------------------------- Q4

    @Test
    void q4TopTriggerPairsWithDeterministicTies() {
        for (String dataset : List.of(AOD_T0, AOD_T1, MC_A, OTHER_RUN)) {
            Ds ds = fixture.dataset(dataset);
            Map<List<Integer>, Long> pairs = new TreeMap<>(Comparator.<List<Integer>>comparingInt(l -> l.get(0))
                    .thenComparingInt(l -> l.get(1)));
            for (Ev x : firstOccurrences(ds).values()) {
                List<Integer> ids = new ArrayList<>();
                x.tav().stream().forEach(ids::add);
                x.hltPhysics().stream().forEach(j -> ids.add(512 + j));
                for (int i = 0; i < ids.size(); i++) {
                    for (int j = i; j < ids.size(); j++) {
                        pairs.merge(List.of(ids.get(i), ids.get(j)), 1L, Long::sum);
                    }
                }
            }
            assertTrue(pairs.size() > 50, "more pairs than the LIMIT: " + pairs.size());
            List<List<Object>> expected = pairs.entrySet().stream()
                    .sorted(Comparator.comparing((Map.Entry<List<Integer>, Long> e) -> -e.getValue())
                            .thenComparing(e -> e.getKey().get(0)).thenComparing(e -> e.getKey().get(1)))
                    .limit(50)
                    .map(e -> Arrays.<Object>asList(label(e.getKey().get(0)), label(e.getKey().get(1)), e.getValue()))
                    .collect(Collectors.toList());
            assertEquals(expected, run("Q4", Map.of("dataset", dataset)), "Q4 " + dataset);
        }
        assertEquals(List.of(), run("Q4", Map.of("dataset", LOADING)));
    }

    private static String label(int id) {
        return id < 512 ? "L1:" + id : "HLT:" + (id - 512);
    }

    // ---------------------------------------------------------------------------------------------------------- Q5

    @Test
    void q5DuplicatesNextToTheFirstOccurrence() {
        assertEquals(11, checkQ5(AOD_T0));
        assertEquals(2, checkQ5(MC_A));
        assertEquals(0, checkQ5(ESD));
    }

    private int checkQ5(String dataset) {
        Ds ds = fixture.dataset(dataset);
        Map<List<Long>, Ev> first = firstOccurrences(ds);
        Map<List<Long>, Integer> occurrence = new LinkedHashMap<>();
        List<List<Object>> expected = new ArrayList<>();
        for (Ev x : ds.rows()) {
            int n = occurrence.merge(key(x.run(), x.event()), 1, Integer::sum);
            if (n > 1 && !ds.loading()) {
                Instant insertion = ds.start().truncatedTo(ChronoUnit.MICROS).plus(n - 2, ChronoUnit.MICROS);
                expected.add(Arrays.asList((long) x.run(), x.event(), first.get(key(x.run(), x.event())).file(),
                        x.file(), insertion));
            }
        }
        expected.sort(Comparator.comparing((List<Object> r) -> (Long) r.get(1))
                .thenComparing(r -> (Instant) r.get(4)));
        assertEquals(expected, run("Q5", Map.of("dataset", dataset)), "Q5 " + dataset);
        return expected.size();
    }

    // ---------------------------------------------------------------------------------------------------------- Q6

    @Test
    void q6CompletenessPerContainer() {
        List<List<Object>> data = checkQ6("data17_13TeV");
        assertEquals(4, data.size());
        // the two task outputs of one container, both LOADED: 411 + 200 events of AMI's 411 + 250
        assertEquals(Arrays.asList("data17_13TeV.00327636.physics_Main.merge.AOD.f838_m1824", 2L, 2L, 611L, 11L,
                661L, 611.0 / 661), data.get(0));
        assertEquals(1, checkQ6("mc16_13TeV").size());
        assertEquals(List.of(), checkQ6("data99_13TeV"));
    }

    private List<List<Object>> checkQ6(String project) {
        Map<String, List<Ds>> containers = new TreeMap<>();
        for (Ds ds : fixture.datasets().values()) {
            if (ds.parsed().project().equals(project)) {
                containers.computeIfAbsent(ds.parsed().container(), c -> new ArrayList<>()).add(ds);
            }
        }
        List<List<Object>> expected = new ArrayList<>();
        containers.forEach((container, list) -> {
            long loaded = 0;
            long events = 0;
            long duplicates = 0;
            Long ami = null;
            for (Ds ds : list) {
                if (!ds.loading()) {
                    loaded++;
                    events += ds.rows().size();
                    duplicates += ds.rows().size() - unique(ds);
                }
                if (ds.amiCount() != null) {
                    ami = (ami == null ? 0 : ami) + ds.amiCount();
                }
            }
            expected.add(Arrays.asList(container, (long) list.size(), loaded, events, duplicates, ami,
                    ami == null ? null : (double) events / ami));
        });
        List<List<Object>> actual = run("Q6", Map.of("project", project));
        assertEquals(expected, actual, "Q6 " + project);
        return actual;
    }

    // ------------------------------------------------------------------------------------------------- the file

    @Test
    void theWholeFileRunsThroughTheShellWithImpalaShellVariables() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        SqlShell shell = new SqlShell(fixture.spark(), new ImpalaToSpark(Map.of("run", "327636", "event", "350",
                "dataset", AOD_T0, "item", "5", "project", "data17_13TeV"), null),
                new SqlShell.Settings(true, 0, false), new PrintStream(out, true), new PrintStream(err, true));
        assertEquals(0, shell.script(EventIndexSql.resource(EventIndexSql.QUERIES)), err.toString());
        String text = out.toString();
        // six CSV results, each with its header
        assertTrue(text.startsWith("dataset,runnumber,eventnumber,db,tk,dbraw,tkraw,dbesd,tkesd,dbaod,tkaod\n"), text);
        for (String header : List.of("runnumber,eventnumber,lumiblocknr,db,tk",
                "dataset,other,shared_events,fraction_of_dataset,fraction_of_other", "trigger1,trigger2,events",
                "runnumber,eventnumber,first_file,copy_file,insertion_time",
                "container,datasets,loaded,events_indexed,duplicates,events_in_ami,completeness")) {
            assertTrue(text.contains("\n" + header + "\n"), header);
        }
        assertEquals(6, err.toString().lines().filter(l -> l.startsWith("Fetched ")).count(), err.toString());
        assertTrue(text.contains("\n327636,55," + guid(0xA1) + "," + guid(0xA2) + ",2026-11-01 10:00:00.123456\n"),
                text);
    }

    // --------------------------------------------------------------------------------------------------- helpers

    /** Runs documented query {@code label} with these variables; values with Integer/Short widened to Long. */
    static List<List<Object>> run(String label, Map<String, Object> vars) {
        Map<String, String> values = new LinkedHashMap<>();
        vars.forEach((k, v) -> values.put(k, v.toString()));
        Statement q = queries.get(label);
        assertFalse(q == null, label + " is not in queries.sql");
        SqlShell shell = new SqlShell(fixture.spark(), new ImpalaToSpark(values, null),
                // query() returns the rows and throws on failure: nothing is printed
                new SqlShell.Settings(false, 0, false), new PrintStream(java.io.OutputStream.nullOutputStream()),
                new PrintStream(java.io.OutputStream.nullOutputStream()));
        List<List<Object>> rows = new ArrayList<>();
        for (List<Object> r : shell.query(q.sql(), 0).rows()) {
            List<Object> n = new ArrayList<>();
            for (Object v : r) {
                n.add(v instanceof Integer || v instanceof Short ? ((Number) v).longValue() : v);
            }
            rows.add(n);
        }
        return rows;
    }

    private static List<Ds> loaded() {
        return fixture.datasets().values().stream().filter(d -> !d.loading()).toList();
    }

    private static List<Long> key(long run, long event) {
        return List.of(run, event);
    }

    /** (run, event) -> first occurrence in file order: the EVENTS/MCEVENTS row. */
    private static Map<List<Long>, Ev> firstOccurrences(Ds ds) {
        Map<List<Long>, Ev> first = new LinkedHashMap<>();
        for (Ev x : ds.rows()) {
            first.putIfAbsent(key(x.run(), x.event()), x);
        }
        return first;
    }

    private static long unique(Ds ds) {
        return firstOccurrences(ds).size();
    }

    private static List<List<Object>> sorted(List<List<Object>> rows) {
        List<List<Object>> s = new ArrayList<>(rows);
        s.sort(Comparator.comparing(Object::toString));
        return s;
    }
}
