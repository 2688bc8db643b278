package org.eventindex.config;

import java.util.Objects;

/**
 * One documented configuration key of a daemon: its name, its default (as text, as written in the properties
 * file), the environment variable that supplies it when it is a secret, and what it means. A daemon's table of keys
 * is the single source for parsing, defaults, {@code config-keys} output and the documentation tables.
 *
 * @param defaultValue the default as written in a properties file; a default computed at run time is described in
 *                     angle brackets, e.g. {@code <the host name>}, and an empty value of the key means that default
 * @param envVar environment variable consulted when the property is unset (secrets only), or null
 */
public record ConfigKey(String name, String defaultValue, String envVar, String doc) {
    public ConfigKey {
        Objects.requireNonNull(name, "name is null");
        Objects.requireNonNull(defaultValue, "defaultValue of " + name + " is null");
        Objects.requireNonNull(doc, "doc of " + name + " is null");
    }

    /** True when the default is computed at run time ({@code <...>}), not a value a file could hold. */
    public boolean computed() {
        return defaultValue.length() > 1 && defaultValue.startsWith("<") && defaultValue.endsWith(">");
    }
}
