package org.eventindex.sql;

import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ImpalaToSparkTest {
    private final ImpalaToSpark t = new ImpalaToSpark(Map.of("run", "327636", "dataset",
            "data17_13TeV.00327636.physics_Main.merge.AOD.f838_m1824", "prefix", "", "masters", "m1:7051,m2:7051"),
            "default:7051");

    @Test
    void variablesAreReplacedByNameAnywhere() {
        assertEquals("SELECT * FROM d WHERE runnumber = 327636 AND dataset = "
                        + "'data17_13TeV.00327636.physics_Main.merge.AOD.f838_m1824' AND r = 327636",
                t.translate("SELECT * FROM d WHERE runnumber = ${var:run} AND dataset = '${VAR:dataset}'"
                        + " AND r = ${var:run}"));
        assertEquals(Set.of("a", "b"), ImpalaToSpark.variablesIn("${var:b} ${var:a} ${var:b} $run {var:c}"));
    }

    @Test
    void otherTextIsLeftAlone() {
        String q = "SELECT getbit(CASE 5 DIV 64 WHEN 0 THEN l1w16 END, 5 % 64), if(a, 1, 0), `x` FROM eventindex.t"
                + " WHERE s = '$' GROUP BY 1";
        assertEquals(q, t.translate(q));
    }

    @Test
    void unsetVariablesAreNamed() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> t.translate("SELECT ${var:event}, ${var:item}, ${var:run}"));
        assertEquals("variables event, item are not set (give --var NAME=VALUE)", e.getMessage());
        assertEquals("variable x is not set (give --var NAME=VALUE)", assertThrows(IllegalArgumentException.class,
                () -> t.translate("SELECT ${var:x}")).getMessage());
    }

    @Test
    void valuesCannotChangeTheStatement() {
        for (String bad : new String[]{"x' OR '1'='1", "1; DROP TABLE t", "a b", "a\\", "a\"", "a`", "--x\n"}) {
            assertThrows(IllegalArgumentException.class, () -> new ImpalaToSpark(Map.of("v", bad), null), bad);
        }
        assertThrows(IllegalArgumentException.class, () -> new ImpalaToSpark(Map.of("1v", "1"), null));
        assertEquals("SELECT 'f838_m*'", t.with("tag", "f838_m*").translate("SELECT '${var:tag}'"));
        assertEquals("SELECT -5", t.with("n", "-5").translate("SELECT ${var:n}"));
    }

    @Test
    void kuduExternalTablesBecomeKuduDataSourceTables() {
        assertEquals("CREATE TABLE IF NOT EXISTS eventindex.events USING kudu OPTIONS ('kudu.table' = 'EVENTS',"
                        + " 'kudu.master' = 'm1:7051,m2:7051')",
                t.translate("""
                        CREATE EXTERNAL TABLE IF NOT EXISTS eventindex.events STORED AS KUDU
                          TBLPROPERTIES ('kudu.table_name' = '${var:prefix}EVENTS', 'kudu.master_addresses' = '${var:masters}')"""));
        assertEquals("CREATE TABLE e.t USING kudu OPTIONS ('kudu.table' = 'p_T', 'kudu.master' = 'default:7051')",
                t.translate("create external table e.t stored as kudu tblproperties ('kudu.table_name'='p_T')"));
    }

    @Test
    void kuduTableStatementsWithoutWhatSparkNeedsAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> t.translate(
                "CREATE EXTERNAL TABLE e.t STORED AS KUDU TBLPROPERTIES ('kudu.master_addresses' = 'm:1')"));
        assertThrows(IllegalArgumentException.class, () -> new ImpalaToSpark(Map.of(), null).translate(
                "CREATE EXTERNAL TABLE e.t STORED AS KUDU TBLPROPERTIES ('kudu.table_name' = 'T')"));
        assertThrows(IllegalArgumentException.class, () -> t.translate(
                "CREATE EXTERNAL TABLE e.t STORED AS KUDU TBLPROPERTIES ('kudu.table_name' = 'T', 'x' = 'y')"));
        assertThrows(IllegalArgumentException.class, () -> t.translate(
                "CREATE EXTERNAL TABLE e.t STORED AS KUDU TBLPROPERTIES ('kudu.table_name' = 'T' 'x')"));
    }

    @Test
    void theDocumentedFilesTranslateWithTheirVariables() {
        ImpalaToSpark all = t.with("event", "5").with("item", "300").with("project", "data17_13TeV");
        var queries = StatementSplitter.split(EventIndexSql.resource(EventIndexSql.QUERIES));
        assertEquals(java.util.List.of("Q1", "Q2", "Q3", "Q4", "Q5", "Q6"),
                queries.stream().map(StatementSplitter.Statement::label).toList());
        for (var q : queries) {
            String sql = all.translate(q.sql());
            assertTrue(ImpalaToSpark.variablesIn(sql).isEmpty(), sql);
        }
        var ddl = StatementSplitter.split(EventIndexSql.resource(EventIndexSql.CREATE_TABLES));
        assertEquals(8, ddl.size());
        assertEquals(6, ddl.stream().map(s -> t.translate(s.sql())).filter(s -> s.contains("USING kudu")).count());
    }
}
