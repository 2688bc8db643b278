package org.eventindex.cluster;

import org.apache.hadoop.conf.Configuration;
import org.apache.kudu.client.KuduException;

import java.io.EOFException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.NoRouteToHostException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * What an operator reads when a cluster cannot be reached: the Kudu masters or the HDFS NameNode named, with the
 * reason in a few words and where to look, instead of an RPC stack trace.
 */
public final class ClusterErrors {
    private static final String NO_ANSWER = "no answer";
    private ClusterErrors() {
    }

    /**
     * A failure of an HDFS call on {@code uri} made readable: an unknown host that is the URI's authority is an unknown
     * nameservice (a hint to the Hadoop configuration folder), a refused, timed-out or closed connection names the
     * NameNode(s).
     * Other failures come back as they are.
     */
    public static IOException hdfs(URI uri, Configuration conf, ClusterSettings settings, Throwable e) {
        String authority = uri.getHost() == null ? uri.getAuthority() : uri.getHost();
        Optional<Throwable> unknown = find(e, UnknownHostException.class);
        if (unknown.isPresent() && authority != null) {
            String dir = settings.hadoopConfDir() == null ? "none given" : settings.hadoopConfDir().toString();
            return new Readable("HDFS " + uri + ": unknown host or nameservice '" + authority + "'. For an HA"
                    + " nameservice, its NameNodes (dfs.nameservices, dfs.ha.namenodes." + authority
                    + ", dfs.namenode.rpc-address." + authority + ".<nn>) come from hdfs-site.xml in the Hadoop"
                    + " configuration folder: set " + settings.names().hadoopConfDir() + " or "
                    + ClusterSettings.ENV_HADOOP_CONF_DIR + " (now: " + dir + ")", e);
        }
        Optional<Throwable> network = find(e, ConnectException.class)
                .or(() -> find(e, NoRouteToHostException.class))
                .or(() -> find(e, SocketTimeoutException.class));
        if (network.isPresent()) {
            return new Readable("HDFS NameNode " + nameNodes(uri, conf) + " of " + uri + " unreachable: "
                    + shortReason(root(network.get())), e);
        }
        if (find(e, EOFException.class).isPresent()) {
            // the NameNode closed the connection in the middle of a call: it is stopping, or went away
            return new Readable("HDFS NameNode " + nameNodes(uri, conf) + " of " + uri + " unreachable: the"
                    + " connection was closed during the call", e);
        }
        Optional<Throwable> denied = find(e, org.apache.hadoop.security.AccessControlException.class);
        if (denied.isPresent()) {
            return new Readable("HDFS " + uri + ": " + oneLine(denied.get()), e);
        }
        if (e instanceof IOException io) {
            return io;
        }
        return new IOException("HDFS " + uri + ": " + e.getMessage(), e);
    }

    /**
     * A failure in one line for an operator: "permission denied (user=..., access=..., inode=...)" for an HDFS
     * permission refusal, else the first line of the message (a Hadoop or Kudu message may carry a stack trace or a
     * wiki link on later lines).
     */
    public static String oneLine(Throwable e) {
        Optional<Throwable> denied = find(e, org.apache.hadoop.security.AccessControlException.class);
        if (denied.isPresent()) {
            String m = firstLine(denied.get().getMessage());
            return "permission denied (" + m.replaceFirst("^(?i)permission denied:\\s*", "") + ")";
        }
        String m = e.getMessage();
        return m == null || m.isBlank() ? e.getClass().getSimpleName() : firstLine(m);
    }

    /** The NameNode address(es) behind {@code uri}: host:port, or the nameservice's NameNodes as configured. */
    static String nameNodes(URI uri, Configuration conf) {
        String host = uri.getHost();
        if (host != null && conf != null) {
            String[] nns = conf.getTrimmedStrings("dfs.ha.namenodes." + host);
            List<String> addresses = new ArrayList<>();
            for (String nn : nns) {
                String a = conf.getTrimmed("dfs.namenode.rpc-address." + host + "." + nn);
                addresses.add(a == null ? nn : a);
            }
            if (!addresses.isEmpty()) {
                return String.join(",", addresses) + " (nameservice " + host + ")";
            }
        }
        return host + ":" + (uri.getPort() >= 0 ? uri.getPort() : 8020);
    }

    /**
     * A Kudu failure made readable: a timeout or network error while nothing answered becomes "Kudu masters H:P,...
     * unreachable after N s" with the last connection error in a few words.
     */
    public static IOException kudu(String masters, Duration waited, KuduException e) {
        if (unreachable(e)) {
            return new Readable("Kudu masters " + masters + " unreachable after " + Math.max(1,
                    Math.round(waited.toMillis() / 1000.0)) + " s (" + kuduReason(e) + ")", e);
        }
        return new Readable("Kudu masters " + masters + ": " + firstLine(e.getMessage()), e);
    }

    /** Whether {@code e} says the masters could not be reached (rather than, say, a missing table). */
    public static boolean unreachable(KuduException e) {
        return e.getStatus().isTimedOut() || e.getStatus().isNetworkError() || e.getStatus().isServiceUnavailable();
    }

    private static final int PROBE_TIMEOUT_MS = 1_000;

    /**
     * "connection refused" when a TCP connection to every one of {@code masters} (host:port, comma-separated) is
     * refused now, "unknown host" when no host resolves; empty otherwise (one accepts, or does not answer in 1 s, or
     * the list cannot be read). For a timeout whose Kudu error names no reason: the client's trace summary of many
     * attempts drops their errors.
     */
    static Optional<String> refusedByEveryMaster(String masters) {
        boolean allRefused = true;
        boolean allUnknown = true;
        for (String master : masters.split(",")) {
            String m = master.strip();
            int colon = m.lastIndexOf(':');
            if (colon <= 0) {
                return Optional.empty();
            }
            int port;
            try {
                port = Integer.parseInt(m.substring(colon + 1));
            } catch (NumberFormatException e) {
                return Optional.empty();
            }
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress(m.substring(0, colon), port), PROBE_TIMEOUT_MS);
                return Optional.empty();
            } catch (ConnectException e) {
                allUnknown = false;
            } catch (UnknownHostException e) {
                allRefused = false;
            } catch (IOException | IllegalArgumentException e) {
                return Optional.empty();
            }
        }
        return allRefused ? Optional.of("connection refused") : allUnknown ? Optional.of("unknown host")
                : Optional.empty();
    }

    /** Whether {@code e} names why the masters did not answer (rather than only that they did not in time). */
    static boolean saysWhy(KuduException e) {
        return !kuduReason(e).equals(NO_ANSWER);
    }

    private static String kuduReason(KuduException e) {
        StringBuilder all = new StringBuilder();
        int depth = 0;
        for (Throwable t = e; t != null && depth < 16; t = t.getCause() == t ? null : t.getCause(), depth++) {
            all.append(t.getMessage()).append('\n');
        }
        String m = all.toString().toLowerCase(Locale.ROOT);
        for (String known : List.of("connection refused", "no route to host", "unknown host", "name or service not"
                + " known", "connection reset", "authentication", "kerberos")) {
            if (m.contains(known)) {
                return known;
            }
        }
        // "Service unavailable: Couldn't find a valid master ... cannot complete before timeout" (seen under load) is
        // a timeout too: its trace summary drops the attempts' errors, which the caller's port probe finds out
        return e.getStatus().isTimedOut() || e.getStatus().isServiceUnavailable() ? NO_ANSWER
                : firstLine(e.getStatus().toString());
    }

    private static Throwable root(Throwable e) {
        Throwable t = e;
        for (int depth = 0; t.getCause() != null && t.getCause() != t && depth < 16; depth++) {
            t = t.getCause();
        }
        return t;
    }

    private static String shortReason(Throwable t) {
        String m = t.getMessage();
        if (m == null) {
            return t.getClass().getSimpleName();
        }
        int cause = m.lastIndexOf(": ");
        return firstLine(cause >= 0 ? m.substring(cause + 2) : m);
    }

    private static String firstLine(String s) {
        if (s == null) {
            return "";
        }
        int nl = s.indexOf('\n');
        String one = nl >= 0 ? s.substring(0, nl) : s;
        return one.length() > 300 ? one.substring(0, 300) + "..." : one;
    }

    /**
     * Whether {@code e} or one of its causes is a known cluster failure, already told in one readable line: a
     * {@link ClusterConfigException} (folder, keytab, login) or a failure made readable here (an unknown nameservice,
     * an unreachable NameNode or Kudu master). A daemon logs those without the stack trace.
     */
    public static boolean known(Throwable e) {
        return find(e, ClusterConfigException.class).isPresent() || find(e, Readable.class).isPresent();
    }

    /**
     * A failure made readable here: its message says it all, its cause is the client library's for the record.
     * {@link Kind#RETRIABLE}: a cluster that does not answer, or answers with an error, may answer later.
     */
    static final class Readable extends IOException implements org.eventindex.EventIndexFailure {
        private static final long serialVersionUID = 1L;

        @Override
        public Kind kind() {
            return Kind.RETRIABLE;
        }

        Readable(String message, Throwable cause) {
            super(message, cause);
        }

        Readable(String message) {
            super(message);
        }
    }

    private static <T extends Throwable> Optional<Throwable> find(Throwable e, Class<T> type) {
        int depth = 0;
        for (Throwable t = e; t != null && depth < 16; t = t.getCause() == t ? null : t.getCause(), depth++) {
            if (type.isInstance(t)) {
                return Optional.of(t);
            }
        }
        return Optional.empty();
    }
}
