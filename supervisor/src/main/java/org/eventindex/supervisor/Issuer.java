package org.eventindex.supervisor;

import java.util.Map;

/**
 * Who sent an operator request, as journalled with its answer ({@code REQUEST_ANSWERED}, decision 0058).
 *
 * @param brokerLogin the broker login of the connection that sent it, as the broker vouches for it: ActiveMQ with
 *                    {@code populateJMSXUserID} (and {@code useAuthenticatedPrincipalForJMSXUserID}) overwrites the
 *                    message's {@code JMSXUserID} with the authenticated login and STOMP delivers it as a header of
 *                    that name; null when the broker set none (a broker without logins)
 * @param claimedUser the operating-system user the operator command ran as, from the request's
 *                    {@value #CLAIMED_USER_HEADER} header: written by the command line, not checked by anyone (several
 *                    operators may share one broker login); null when absent
 * @param httpUser    the authenticated HTTP user of a console action; null for requests from the broker
 */
public record Issuer(String brokerLogin, String claimedUser, String httpUser) {
    /** The header ActiveMQ fills with the sender's authenticated login (and overwrites when a client sets it). */
    public static final String BROKER_LOGIN_HEADER = "JMSXUserID";
    /** The header the operator command line fills with the operating-system user it runs as. */
    public static final String CLAIMED_USER_HEADER = "eventindex-os-user";
    /** Nobody known. */
    public static final Issuer UNKNOWN = new Issuer(null, null, null);

    public Issuer {
        brokerLogin = blankToNull(brokerLogin);
        claimedUser = blankToNull(claimedUser);
        httpUser = blankToNull(httpUser);
    }

    /** The issuer a STOMP request's headers name. */
    public static Issuer of(Map<String, String> headers) {
        return new Issuer(headers.get(BROKER_LOGIN_HEADER), limited(headers.get(CLAIMED_USER_HEADER)), null);
    }

    /** For the console's history and the answers' log lines: {@code broker login L, OS user U (claimed)}. */
    public String describe() {
        StringBuilder b = new StringBuilder();
        if (brokerLogin != null) {
            b.append("broker login ").append(brokerLogin);
        }
        if (httpUser != null) {
            b.append(b.length() == 0 ? "" : ", ").append("HTTP user ").append(httpUser);
        }
        if (claimedUser != null) {
            b.append(b.length() == 0 ? "" : ", ").append("OS user ").append(claimedUser).append(" (claimed)");
        }
        return b.length() == 0 ? "unknown" : b.toString();
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s.strip();
    }

    /** A claimed name is the sender's to choose: bounded, one line. */
    private static String limited(String s) {
        if (s == null) {
            return null;
        }
        String one = s.replaceAll("[\\r\\n\\t]", " ");
        return one.length() > 64 ? one.substring(0, 64) : one;
    }
}
