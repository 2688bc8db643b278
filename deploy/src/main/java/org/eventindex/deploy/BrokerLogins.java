package org.eventindex.deploy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.eventindex.config.SecretFile;
import org.eventindex.stomp.StompEndpoint;
import org.eventindex.stomp.StompSettings;
import org.eventindex.testing.BrokerAccess;
import org.eventindex.testing.EmbeddedBroker;

/**
 * The broker logins of one embedded stack, one per role of {@link BrokerAccess}, each with a fresh random password:
 * the stack's daemons and producers run with the same separation of rights as a production deployment.
 * {@link #toString()} names the logins only.
 */
public final class BrokerLogins {
    public static final String PRODUCER = "producer";
    public static final String SUPERVISOR = "supervisor";
    public static final String CONSUMER = "consumer";
    public static final String OPERATOR = "operator";
    public static final String ADMIN = "admin";

    private static final Map<String, String> GROUP_OF = Map.of(PRODUCER, BrokerAccess.PRODUCERS,
            SUPERVISOR, BrokerAccess.SUPERVISORS, CONSUMER, BrokerAccess.CONSUMERS, OPERATOR, BrokerAccess.OPERATORS,
            ADMIN, BrokerAccess.ADMINS);

    private final Map<String, String> passwords;

    private BrokerLogins(Map<String, String> passwords) {
        this.passwords = Map.copyOf(passwords);
    }

    /** A random 128-bit password per login. */
    public static BrokerLogins random() {
        SecureRandom random = new SecureRandom();
        Map<String, String> pw = new LinkedHashMap<>();
        for (String login : GROUP_OF.keySet()) {
            byte[] b = new byte[16];
            random.nextBytes(b);
            pw.put(login, HexFormat.of().formatHex(b));
        }
        return new BrokerLogins(pw);
    }

    /**
     * Writes each login's password to {@code <dir>/<login>.password}, mode 0600 ({@link SecretFile}): how a broker
     * process and the daemons of a multi-process cluster receive them without putting them on a command line.
     */
    public BrokerLogins writeTo(Path dir) throws IOException {
        Files.createDirectories(dir);
        for (Map.Entry<String, String> e : passwords.entrySet()) {
            SecretFile.write(passwordFile(dir, e.getKey()), e.getValue());
        }
        return this;
    }

    /** Reads the logins written by {@link #writeTo(Path)}; each file must be mode 0600 and hold a password. */
    public static BrokerLogins readFrom(Path dir) throws IOException {
        Map<String, String> pw = new LinkedHashMap<>();
        for (String login : GROUP_OF.keySet()) {
            pw.put(login, SecretFile.read(passwordFile(dir, login), "broker login " + login));
        }
        return new BrokerLogins(pw);
    }

    /** The file that {@link #writeTo(Path)} writes {@code login}'s password to. */
    public static Path passwordFile(Path dir, String login) {
        if (!GROUP_OF.containsKey(login)) {
            throw new IllegalArgumentException("no broker login '" + login + "'; the logins are " + GROUP_OF.keySet());
        }
        return dir.resolve(login + ".password");
    }

    /** The logins and groups for {@link EmbeddedBroker#startSecured}. */
    public EmbeddedBroker.Security security() {
        Map<String, Set<String>> groups = new LinkedHashMap<>();
        GROUP_OF.forEach((login, group) -> groups.put(login, Set.of(group)));
        return new EmbeddedBroker.Security(passwords, groups);
    }

    public String password(String login) {
        return Objects.requireNonNull(passwords.get(login), () -> "no broker login '" + login + "'");
    }

    /** Settings to reach {@code endpoints} (host:port list) as {@code login}. */
    public StompSettings settings(String endpoints, String login) {
        return StompSettings.of(StompEndpoint.parseList(endpoints), login, password(login));
    }

    @Override
    public String toString() {
        return "BrokerLogins" + GROUP_OF.keySet();
    }
}
