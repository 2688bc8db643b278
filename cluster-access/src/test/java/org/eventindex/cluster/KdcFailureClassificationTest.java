package org.eventindex.cluster;

import org.junit.jupiter.api.Test;

import javax.security.auth.login.LoginException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Which failed logins are a KDC that is down (the daemon waits) and which are the configuration's (exit 2), on the
 * chains Java and Hadoop give: Hadoop's {@code KerberosAuthException} ("failure to login: for principal: P from keytab
 * K ...") around the JDK's {@link LoginException}, around the {@code KrbException} or socket exception of the attempt.
 * The messages are the JDK 17 Krb5LoginModule's (the refused connection is the one {@code KerberosDependenciesIT}
 * reads from a stopped MIT KDC).
 */
class KdcFailureClassificationTest {
    private static final String HADOOP = "failure to login: for principal: eventindex/localhost@EVENTINDEX.TEST from"
            + " keytab /etc/eventindex/eventindex.keytab javax.security.auth.login.LoginException: ";

    private static IOException hadoop(String jdkMessage, Throwable cause) {
        LoginException login = new LoginException(jdkMessage);
        login.initCause(cause);
        return new IOException(HADOOP + jdkMessage, login);
    }

    @Test
    void aKdcThatRefusesTheConnectionOrDoesNotAnswerIsADependencyDown() {
        // TCP (udp_preference_limit = 1) to a KDC that is not running
        assertTrue(KerberosLogin.kdcUnreachable(hadoop("Connection refused",
                new ConnectException("Connection refused"))));
        // UDP to a KDC that is not running, or a host that drops the packets
        assertTrue(KerberosLogin.kdcUnreachable(hadoop("Receive timed out",
                new SocketTimeoutException("Receive timed out"))));
        // TCP to a host that drops the packets
        assertTrue(KerberosLogin.kdcUnreachable(hadoop("Connect timed out",
                new SocketTimeoutException("Connect timed out"))));
        // every KDC of the realm tried, the JDK's summary without the socket exception as its cause
        assertTrue(KerberosLogin.kdcUnreachable(hadoop("Cannot contact any KDC for realm 'EVENTINDEX.TEST'",
                new Exception("Cannot contact any KDC for realm 'EVENTINDEX.TEST'"))));
        // the KDC's host name does not resolve (DNS down after a power cut)
        assertTrue(KerberosLogin.kdcUnreachable(hadoop("kdc1.example.org: Name or service not known",
                new UnknownHostException("kdc1.example.org: Name or service not known"))));
    }

    @Test
    void whatTheKdcRefusesOrTheConfigurationLacksIsForAnOperator() {
        assertFalse(KerberosLogin.kdcUnreachable(hadoop("Client not found in Kerberos database (6)",
                new Exception("Identifier doesn't match expected value (906)"))));
        assertFalse(KerberosLogin.kdcUnreachable(hadoop("Pre-authentication information was invalid (24)",
                new Exception("Checksum failed"))));
        assertFalse(KerberosLogin.kdcUnreachable(hadoop("Unable to obtain password from user", null)));
        assertFalse(KerberosLogin.kdcUnreachable(hadoop("Cannot locate default realm",
                new Exception("Cannot locate default realm"))));
        assertFalse(KerberosLogin.kdcUnreachable(hadoop("Cannot locate KDC", new Exception("Cannot locate KDC"))));
        assertFalse(KerberosLogin.kdcUnreachable(hadoop("Clock skew too great (37)",
                new Exception("Clock skew too great (37)"))));
    }

    @Test
    void theReasonSaysWhetherTheKdcIsDownOrTheConfigurationIsWrong() {
        assertTrue(KerberosLogin.reason(hadoop("Connection refused", new ConnectException("Connection refused")))
                .startsWith("no KDC of the realm answered"));
        assertTrue(KerberosLogin.reason(hadoop("Cannot locate default realm",
                new Exception("Cannot locate default realm"))).startsWith("krb5.conf names no KDC"));
    }
}
