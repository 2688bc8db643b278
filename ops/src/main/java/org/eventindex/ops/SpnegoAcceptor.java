package org.eventindex.ops;

import org.eventindex.config.SecretFile;
import org.ietf.jgss.GSSContext;
import org.ietf.jgss.GSSCredential;
import org.ietf.jgss.GSSException;
import org.ietf.jgss.GSSManager;
import org.ietf.jgss.GSSName;
import org.ietf.jgss.Oid;

import javax.security.auth.Subject;
import javax.security.auth.login.AppConfigurationEntry;
import javax.security.auth.login.Configuration;
import javax.security.auth.login.LoginContext;
import javax.security.auth.login.LoginException;
import java.io.IOException;
import java.nio.file.Path;
import java.security.PrivilegedActionException;
import java.security.PrivilegedExceptionAction;
import java.util.Map;
import java.util.Objects;

/**
 * The server side of SPNEGO (RFC 4559) with the JDK's Kerberos: the service principal's keys from a keytab, read by
 * the JDK's {@code Krb5LoginModule} as an acceptor only (no ticket is asked of the KDC, so a server starts while the
 * KDC is down), and one JGSS context per request token. A Kerberos exchange completes in one round; a token that needs
 * another (NTLM, which a Hadoop site does not use) is refused.
 */
final class SpnegoAcceptor {
    private static final Oid SPNEGO = oid("1.3.6.1.5.5.2");
    private static final Oid KERBEROS = oid("1.2.840.113554.1.2.2");
    private static final Oid KERBEROS_PRINCIPAL = oid("1.2.840.113554.1.2.2.1");

    private final String principal;
    private final Subject subject;
    private final GSSCredential credential;

    private SpnegoAcceptor(String principal, Subject subject, GSSCredential credential) {
        this.principal = principal;
        this.subject = subject;
        this.credential = credential;
    }

    /**
     * Reads the keys of {@code principal} ({@code HTTP/host@REALM}, {@code *} for every principal of the keytab).
     *
     * @param what the configuration key naming the keytab, for the messages
     * @throws IOException naming the keytab and principal when the keytab is unreadable, open to others or lacks
     *                     the principal
     */
    static SpnegoAcceptor login(String principal, Path keytab, String what) throws IOException {
        Objects.requireNonNull(principal, "principal is null");
        SecretFile.requireOwnerOnly(keytab, what, "keytab");
        Subject subject = new Subject();
        Map<String, String> options = Map.of("useKeyTab", "true", "keyTab", keytab.toString(),
                "principal", principal, "storeKey", "true", "isInitiator", "false", "doNotPrompt", "true");
        Configuration config = new Configuration() {
            @Override
            public AppConfigurationEntry[] getAppConfigurationEntry(String name) {
                return new AppConfigurationEntry[]{new AppConfigurationEntry(
                        "com.sun.security.auth.module.Krb5LoginModule",
                        AppConfigurationEntry.LoginModuleControlFlag.REQUIRED, options)};
            }
        };
        try {
            new LoginContext("eventindex-http", subject, null, config).login();
        } catch (LoginException e) {
            throw new IOException(what + ": cannot read the keys of " + principal + " from keytab " + keytab + ": "
                    + e.getMessage() + " (check the principal's name and realm: klist -kt " + keytab + ")", e);
        }
        try {
            GSSCredential credential = Subject.doAs(subject, (PrivilegedExceptionAction<GSSCredential>) () -> {
                GSSManager manager = GSSManager.getInstance();
                GSSName name = principal.equals("*") ? null : manager.createName(principal, KERBEROS_PRINCIPAL);
                return manager.createCredential(name, GSSCredential.INDEFINITE_LIFETIME,
                        new Oid[]{SPNEGO, KERBEROS}, GSSCredential.ACCEPT_ONLY);
            });
            return new SpnegoAcceptor(principal, subject, credential);
        } catch (PrivilegedActionException e) {
            throw new IOException(what + ": cannot accept Kerberos tickets for " + principal + " with keytab "
                    + keytab + ": " + e.getException().getMessage(), e.getException());
        }
    }

    /**
     * Accepts one {@code Negotiate} token.
     *
     * @return the client's principal and the token to send back, or the reason of the refusal
     */
    Outcome accept(byte[] token) {
        try {
            return Subject.doAs(subject, (PrivilegedExceptionAction<Outcome>) () -> {
                GSSContext context = GSSManager.getInstance().createContext(credential);
                try {
                    byte[] reply = context.acceptSecContext(token, 0, token.length);
                    if (!context.isEstablished()) {
                        return Outcome.refused("the Negotiate exchange needs another round: only Kerberos is"
                                + " accepted (not NTLM)");
                    }
                    return new Outcome(context.getSrcName().toString(), reply, null);
                } finally {
                    context.dispose();
                }
            });
        } catch (PrivilegedActionException e) {
            Exception cause = e.getException();
            return Outcome.refused(cause instanceof GSSException g ? g.getMessage() : cause.toString());
        }
    }

    String principal() {
        return principal;
    }

    /**
     * @param user   the client principal, null when refused
     * @param reply  the token for {@code WWW-Authenticate: Negotiate} on the response (mutual authentication), or null
     * @param reason why the token was refused, null when accepted
     */
    record Outcome(String user, byte[] reply, String reason) {
        static Outcome refused(String reason) {
            return new Outcome(null, null, reason);
        }

        boolean accepted() {
            return user != null;
        }
    }

    private static Oid oid(String s) {
        try {
            return new Oid(s);
        } catch (GSSException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
}
