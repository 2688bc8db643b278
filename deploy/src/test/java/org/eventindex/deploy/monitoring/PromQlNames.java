package org.eventindex.deploy.monitoring;

import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The metric names a PromQL expression reads, found simply: string literals, label matchers ({@code {...}}), ranges
 * and subqueries ({@code [...]}), grouping label lists ({@code by (...)}, {@code on (...)}, ...) and Grafana variables
 * ({@code $x}, {@code ${x}}) are removed; every identifier left that is not a function (followed by {@code (}), a
 * keyword, an aggregation or a number is a metric name. A histogram's {@code _bucket}, {@code _count} and
 * {@code _sum} series are named as the exposition names them, so they are kept as written.
 */
final class PromQlNames {
    private static final Pattern STRING = Pattern.compile("\"(?:[^\"\\\\]|\\\\.)*\"|'(?:[^'\\\\]|\\\\.)*'|`[^`]*`");
    private static final Pattern BRACES = Pattern.compile("\\{[^{}]*}");
    private static final Pattern BRACKETS = Pattern.compile("\\[[^\\[\\]]*]");
    private static final Pattern GROUPING = Pattern.compile(
            "\\b(by|without|on|ignoring|group_left|group_right)\\s*\\([^()]*\\)");
    private static final Pattern VARIABLE = Pattern.compile("\\$\\{[^}]*}|\\$\\w+");
    private static final Pattern IDENTIFIER = Pattern.compile("(?<![\\w.])([a-zA-Z_:][\\w:]*)(\\s*\\()?");
    private static final Set<String> KEYWORDS = Set.of("and", "or", "unless", "bool", "offset", "by", "without",
            "on", "ignoring", "group_left", "group_right", "inf", "nan", "atan2");

    private PromQlNames() {
    }

    /** The metric names in {@code expr}, sorted. */
    static Set<String> of(String expr) {
        String s = STRING.matcher(expr).replaceAll("\"\"");
        s = VARIABLE.matcher(s).replaceAll("1");
        s = BRACES.matcher(s).replaceAll(" ");
        s = BRACKETS.matcher(s).replaceAll(" ");
        s = GROUPING.matcher(s).replaceAll(" ");
        Set<String> names = new TreeSet<>();
        Matcher m = IDENTIFIER.matcher(s);
        while (m.find()) {
            String id = m.group(1);
            boolean function = m.group(2) != null;
            if (!function && !KEYWORDS.contains(id.toLowerCase(java.util.Locale.ROOT))) {
                names.add(id);
            }
        }
        return names;
    }
}
