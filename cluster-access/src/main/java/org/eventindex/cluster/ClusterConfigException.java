package org.eventindex.cluster;

import org.eventindex.EventIndexFailure;

/**
 * A configuration the clusters refuse: a missing or unreadable Hadoop configuration folder or file, a Kerberos
 * principal or keytab that does not log in. The daemons and tools exit with status 2 (bad usage or configuration) on
 * it; the message names the key or option, the path and the reason. {@link Kind#FATAL}: an operator must change the
 * configuration, the folder or the keytab first.
 */
public final class ClusterConfigException extends RuntimeException implements EventIndexFailure {
    private static final long serialVersionUID = 1L;

    public ClusterConfigException(String message) {
        super(message);
    }

    public ClusterConfigException(String message, Throwable cause) {
        super(message, cause);
    }

    @Override
    public Kind kind() {
        return Kind.FATAL;
    }
}
