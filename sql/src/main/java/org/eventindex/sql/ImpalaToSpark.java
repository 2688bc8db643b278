package org.eventindex.sql;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static java.util.Objects.requireNonNull;

/**
 * The translation of the statements of {@code deploy/impala/} from Impala to Spark SQL. The documented queries are
 * written in the SQL both engines accept; what is left are two rules, and nothing else is changed:
 * <ol>
 *   <li><b>Variables.</b> {@code ${var:NAME}} (or {@code ${VAR:NAME}}), impala-shell's {@code --var=NAME=VALUE}, is
 *       replaced by the value given for NAME, anywhere in the text (also inside quotes, as impala-shell does). A
 *       variable without a value is an error. Values may hold only letters, digits and {@code _ . : , * % + -}
 *       (numbers, dataset names, master addresses, table prefixes): no quote, blank or {@code ;} can change the
 *       statement around them.</li>
 *   <li><b>Kudu tables.</b> Impala's {@code CREATE EXTERNAL TABLE [IF NOT EXISTS] db.t STORED AS KUDU
 *       TBLPROPERTIES ('kudu.table_name' = 'T' [, 'kudu.master_addresses' = 'M'])} becomes Spark's
 *       {@code CREATE TABLE [IF NOT EXISTS] db.t USING kudu OPTIONS ('kudu.table' = 'T', 'kudu.master' = 'M')}
 *       (kudu-spark reads the columns from Kudu, as Impala does). Without {@code kudu.master_addresses} (Impala then
 *       uses its {@code --kudu_master_hosts}) the default master given here is used.</li>
 * </ol>
 * Instances are immutable.
 */
public final class ImpalaToSpark {
    private static final Pattern VARIABLE = Pattern.compile("\\$\\{(?:var|VAR):([A-Za-z_][A-Za-z0-9_]*)}");
    private static final Pattern VALUE = Pattern.compile("[A-Za-z0-9_.:,*%+\\-]*");
    private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
    private static final Pattern KUDU_TABLE = Pattern.compile(
            "(?is)^CREATE\\s+EXTERNAL\\s+TABLE\\s+(IF\\s+NOT\\s+EXISTS\\s+)?([A-Za-z0-9_.`]+)\\s+STORED\\s+AS\\s+KUDU"
                    + "\\s+TBLPROPERTIES\\s*\\((.*)\\)\\s*$");
    private static final Pattern PROPERTY = Pattern.compile("\\s*'([^']*)'\\s*=\\s*'([^']*)'\\s*(,|$)");

    private final Map<String, String> variables;
    private final String defaultMaster;

    /**
     * @param variables     values of {@code ${var:NAME}}
     * @param defaultMaster Kudu masters for a Kudu table without {@code kudu.master_addresses}; may be null
     * @throws IllegalArgumentException for a bad variable name or a value with characters outside the allowed set
     */
    public ImpalaToSpark(Map<String, String> variables, String defaultMaster) {
        requireNonNull(variables, "variables is null");
        Map<String, String> copy = new LinkedHashMap<>();
        variables.forEach((name, value) -> {
            checkVariable(name, value);
            copy.put(name, value);
        });
        this.variables = Map.copyOf(copy);
        this.defaultMaster = defaultMaster;
    }

    /** The same translation with one more variable (or a new value for it). */
    public ImpalaToSpark with(String name, String value) {
        Map<String, String> v = new LinkedHashMap<>(variables);
        v.put(name, value);
        return new ImpalaToSpark(v, defaultMaster);
    }

    public Map<String, String> variables() {
        return variables;
    }

    /** Checks one {@code --var} as {@link #ImpalaToSpark} does. */
    public static void checkVariable(String name, String value) {
        requireNonNull(name, "variable name is null");
        requireNonNull(value, "value of variable " + name + " is null");
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("variable name '" + name + "' is not a name (letters, digits, _)");
        }
        if (!VALUE.matcher(value).matches()) {
            throw new IllegalArgumentException("value '" + value + "' of variable " + name + " may hold only"
                    + " letters, digits and _ . : , * % + - (no quotes, blanks or ';')");
        }
    }

    /** The names of the variables {@code sql} uses, sorted. */
    public static Set<String> variablesIn(String sql) {
        Set<String> names = new TreeSet<>();
        Matcher m = VARIABLE.matcher(sql);
        while (m.find()) {
            names.add(m.group(1));
        }
        return names;
    }

    /**
     * Translates one statement (without its terminating {@code ;}).
     *
     * @throws IllegalArgumentException naming the variables the statement uses without a value, or a Kudu table
     *                                  statement without {@code kudu.table_name} or masters
     */
    public String translate(String statement) {
        requireNonNull(statement, "statement is null");
        Set<String> missing = new TreeSet<>(variablesIn(statement));
        missing.removeAll(variables.keySet());
        if (!missing.isEmpty()) {
            throw new IllegalArgumentException("variable" + (missing.size() > 1 ? "s " : " ") + String.join(", ",
                    missing) + (missing.size() > 1 ? " are" : " is") + " not set (give --var NAME=VALUE)");
        }
        Matcher m = VARIABLE.matcher(statement);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            m.appendReplacement(out, Matcher.quoteReplacement(variables.get(m.group(1))));
        }
        m.appendTail(out);
        return kuduTable(out.toString());
    }

    private String kuduTable(String sql) {
        Matcher m = KUDU_TABLE.matcher(sql.strip());
        if (!m.matches()) {
            return sql;
        }
        Map<String, String> props = new LinkedHashMap<>();
        Matcher p = PROPERTY.matcher(m.group(3));
        int end = 0;
        while (p.find() && p.start() == end) {
            props.put(p.group(1), p.group(2));
            end = p.end();
        }
        if (end != m.group(3).length()) {
            throw new IllegalArgumentException("TBLPROPERTIES of " + m.group(2) + " are not a list of 'key' = 'value'"
                    + " pairs: (" + m.group(3).strip() + ")");
        }
        String table = props.get("kudu.table_name");
        if (table == null || table.isEmpty()) {
            throw new IllegalArgumentException("Kudu table " + m.group(2) + " has no 'kudu.table_name' property");
        }
        String masters = props.get("kudu.master_addresses");
        if (masters == null || masters.isEmpty()) {
            masters = defaultMaster;
        }
        if (masters == null || masters.isEmpty()) {
            throw new IllegalArgumentException("Kudu table " + m.group(2) + " names no 'kudu.master_addresses' and no"
                    + " default Kudu master is set");
        }
        for (String key : props.keySet()) {
            if (!key.equals("kudu.table_name") && !key.equals("kudu.master_addresses")) {
                throw new IllegalArgumentException("Kudu table " + m.group(2) + ": property '" + key + "' has no"
                        + " Spark equivalent here");
            }
        }
        return "CREATE TABLE " + (m.group(1) == null ? "" : "IF NOT EXISTS ") + m.group(2) + " USING kudu OPTIONS ("
                + "'kudu.table' = '" + table + "', 'kudu.master' = '" + masters + "')";
    }
}
