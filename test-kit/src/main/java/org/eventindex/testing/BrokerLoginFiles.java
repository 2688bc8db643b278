package org.eventindex.testing;

import static java.util.Objects.requireNonNull;

import com.sun.security.auth.login.ConfigFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import javax.security.auth.login.AppConfigurationEntry;
import javax.security.auth.login.Configuration;

/**
 * A broker's logins as the shipped template keeps them: the JAAS entry {@code activemq} of a {@code login.config}
 * (the template's own, {@code broker-host/activemq/login.config}) over {@code users.properties},
 * {@code users-next.properties} and {@code groups.properties} in one folder, which ActiveMQ's
 * {@code PropertiesLoginModule} reads again when they change. {@link #register} makes the entry known to this JVM's
 * JAAS configuration under a name of its own (with the folder as the modules' {@code baseDir}); every other name is
 * still answered by the configuration that was there before.
 */
public final class BrokerLoginFiles {
    /** The template's JAAS entry name ({@code jaasAuthenticationPlugin configuration="activemq"}). */
    public static final String ENTRY = "activemq";
    public static final String USERS = "users.properties";
    public static final String USERS_NEXT = "users-next.properties";
    public static final String GROUPS = "groups.properties";

    private static final AtomicInteger NAMES = new AtomicInteger();
    private static final Map<String, AppConfigurationEntry[]> ENTRIES = new ConcurrentHashMap<>();
    private static Configuration installed;

    private BrokerLoginFiles() {
    }

    /**
     * Writes {@link #USERS} (mode 0600) and {@link #GROUPS} for {@code security}, and an empty {@link #USERS_NEXT},
     * into {@code dir}, unless {@link #USERS} is there already (a broker restarted on its files).
     */
    public static void write(Path dir, EmbeddedBroker.Security security) throws IOException {
        requireNonNull(security, "security is null");
        Files.createDirectories(dir);
        if (Files.exists(dir.resolve(USERS))) {
            return;
        }
        writeOwnerOnly(dir.resolve(USERS), lines(new TreeMap<>(security.passwords())));
        writeOwnerOnly(dir.resolve(USERS_NEXT), "");
        Map<String, Set<String>> groups = new TreeMap<>();
        security.groups().forEach((login, gs) -> gs.forEach(g -> groups.computeIfAbsent(g, k -> new TreeSet<>())
                .add(login)));
        Map<String, String> joined = new LinkedHashMap<>();
        groups.forEach((g, logins) -> joined.put(g, String.join(",", logins)));
        Files.writeString(dir.resolve(GROUPS), lines(joined));
    }

    /**
     * Replaces {@code file} (mode 0600) with {@code content} in one step (written beside it, then moved over it), as
     * an operator edits a password file the broker reads again.
     */
    public static void writeOwnerOnly(Path file, String content) throws IOException {
        Path next = file.resolveSibling(file.getFileName() + ".new");
        Files.deleteIfExists(next);
        Files.createFile(next, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        Files.writeString(next, content);
        Files.move(next, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    /** {@code key=value} lines, as the properties files hold the logins. */
    public static String lines(Map<String, String> entries) {
        StringBuilder sb = new StringBuilder();
        entries.forEach((k, v) -> sb.append(k).append('=').append(v).append('\n'));
        return sb.toString();
    }

    /**
     * Registers {@code loginConfig}'s {@link #ENTRY} with the files of {@code dir} and returns the JAAS name to give
     * ActiveMQ's {@code JaasAuthenticationPlugin}.
     */
    public static synchronized String register(Path loginConfig, Path dir) {
        requireNonNull(loginConfig, "loginConfig is null");
        requireNonNull(dir, "dir is null");
        AppConfigurationEntry[] template = new ConfigFile(loginConfig.toUri()).getAppConfigurationEntry(ENTRY);
        if (template == null) {
            throw new IllegalArgumentException(loginConfig + " has no JAAS entry " + ENTRY);
        }
        AppConfigurationEntry[] entries = new AppConfigurationEntry[template.length];
        for (int i = 0; i < template.length; i++) {
            Map<String, Object> options = new HashMap<>(template[i].getOptions());
            options.put("baseDir", dir.toAbsolutePath().toString());
            entries[i] = new AppConfigurationEntry(template[i].getLoginModuleName(), template[i].getControlFlag(),
                    options);
        }
        String name = "eventindex-broker-" + NAMES.incrementAndGet();
        ENTRIES.put(name, entries);
        if (installed == null) {
            Configuration previous = previous();
            installed = new Configuration() {
                @Override
                public AppConfigurationEntry[] getAppConfigurationEntry(String n) {
                    AppConfigurationEntry[] own = ENTRIES.get(n);
                    return own != null || previous == null ? own : previous.getAppConfigurationEntry(n);
                }

                @Override
                public void refresh() {
                    if (previous != null) {
                        previous.refresh();
                    }
                }
            };
            Configuration.setConfiguration(installed);
        }
        return name;
    }

    private static Configuration previous() {
        try {
            return Configuration.getConfiguration();
        } catch (SecurityException e) {
            return null; // no JAAS configuration file in this JVM: ours is the only one
        }
    }
}
