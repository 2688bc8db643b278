package org.eventindex.cluster;

import org.eventindex.EventIndexFailure;

/**
 * A Kerberos login that failed because no KDC of the realm answered (refused, timed out, no route, unknown host): a
 * dependency that is down, not a configuration to fix. {@link Kind#RETRIABLE}: the daemons wait for the KDC and log in
 * when it answers; the message names the principal, the keytab and the reason. What an operator must fix (a keytab
 * the KDC refuses, an unknown principal, an unreadable keytab, a krb5.conf without the realm) stays a
 * {@link ClusterConfigException}.
 */
public final class KdcUnreachableException extends RuntimeException implements EventIndexFailure {
    private static final long serialVersionUID = 1L;

    public KdcUnreachableException(String message, Throwable cause) {
        super(message, cause);
    }

    @Override
    public Kind kind() {
        return Kind.RETRIABLE;
    }
}
