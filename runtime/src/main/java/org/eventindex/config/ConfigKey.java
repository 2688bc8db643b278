package org.eventindex.config;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * One documented configuration key of a daemon: its name, its default (as text, as written in the properties
 * file), the environment variable that supplies it when it is a secret, what it means, and whether its value may be
 * shown. A daemon's table of keys is the single source for parsing, defaults, {@code config-keys} output, the
 * documentation tables and what the daemon's information endpoint shows of its configuration ({@link #shown}).
 *
 * @param defaultValue the default as written in a properties file; a default computed at run time is described in
 *                     angle brackets, e.g. {@code <the host name>}, and an empty value of the key means that default
 * @param envVar       environment variable consulted when the property is unset (secrets only), or null
 * @param sensitivity  whether the value is shown, or only whether it is set ({@link #secret()}, {@link #secretPath()})
 */
public record ConfigKey(String name, String defaultValue, String envVar, String doc, Sensitivity sensitivity) {
    /** What may be shown of a key's value (decision 0058). */
    public enum Sensitivity {
        /** Shown as it is. */
        PLAIN,
        /** A secret itself (a password, a secret key): only whether it is set is shown. */
        SECRET,
        /** The path of a secret (a password file, a keytab, a key or trust store): only whether it is set is shown. */
        SECRET_PATH
    }

    /**
     * Names that hold a secret or the path to one; a key matching it must be {@link #secret()} or {@link #secretPath()}
     * ({@link #unmarkedSecret()}, checked for every daemon's table by its configuration test).
     */
    public static final Pattern SECRET_NAME = Pattern.compile(
            "(^|[._-])(password|passwd|passcode|secret|keytab|keystore|truststore|credentials?|token|private)([._-]|$)");

    /** A plain key (shown as it is). */
    public ConfigKey(String name, String defaultValue, String envVar, String doc) {
        this(name, defaultValue, envVar, doc, Sensitivity.PLAIN);
    }

    public ConfigKey {
        Objects.requireNonNull(name, "name is null");
        Objects.requireNonNull(defaultValue, "defaultValue of " + name + " is null");
        Objects.requireNonNull(doc, "doc of " + name + " is null");
        Objects.requireNonNull(sensitivity, "sensitivity of " + name + " is null");
    }

    /** This key holding a secret itself. */
    public ConfigKey secret() {
        return new ConfigKey(name, defaultValue, envVar, doc, Sensitivity.SECRET);
    }

    /** This key holding the path of a secret (a password file, a keytab, a key or trust store). */
    public ConfigKey secretPath() {
        return new ConfigKey(name, defaultValue, envVar, doc, Sensitivity.SECRET_PATH);
    }

    /** True when the default is computed at run time ({@code <...>}), not a value a file could hold. */
    public boolean computed() {
        return defaultValue.length() > 1 && defaultValue.startsWith("<") && defaultValue.endsWith(">");
    }

    /** True when the name looks like a secret's ({@link #SECRET_NAME}) but the key is not marked as one. */
    public boolean unmarkedSecret() {
        return sensitivity == Sensitivity.PLAIN && SECRET_NAME.matcher(name).find();
    }

    /**
     * What an information endpoint shows of the key's effective value: the value for a plain key; for a secret or the
     * path of one only {@code (set)} or {@code (not set)} ({@code set} also when only its environment variable is).
     *
     * @param value  the effective value (the property or the default), trimmed
     * @param envSet whether the key's environment variable is set
     */
    public String shown(String value, boolean envSet) {
        if (sensitivity == Sensitivity.PLAIN) {
            return value;
        }
        return value.isEmpty() && !envSet ? "(not set)" : "(set)";
    }
}
