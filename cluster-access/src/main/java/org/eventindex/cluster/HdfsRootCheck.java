package org.eventindex.cluster;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileContext;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.security.UserGroupInformation;

import java.io.IOException;
import java.net.URI;
import java.util.Arrays;
import java.util.Objects;
import java.util.UUID;

/**
 * The HDFS folder a daemon writes under (the consumer's datasets root, the supervisor's journal on HDFS): whether it
 * answers (what {@code /ready} asks every interval) and whether the daemon's user can work there (what
 * {@code eventindex check} asks before a start: the nameservice known to the configuration folder, the folder owned
 * by the user and writable, or creatable by the user where it does not exist yet).
 */
public final class HdfsRootCheck {
    private HdfsRootCheck() {
    }

    /** The readiness probe: the NameNode answers a question about {@code root} (present or not). */
    public static void reachable(FileContext fc, Path root) throws IOException {
        Objects.requireNonNull(fc, "fc is null");
        fc.util().exists(Objects.requireNonNull(root, "root is null"));
    }

    /**
     * A logical name ({@code hdfs://eventindex-ns/...}, no port) must be one of the configuration folder's
     * {@code dfs.nameservices}; a {@code host:port} URI needs nothing.
     *
     * @throws IOException naming the nameservice, the folder and the ones it lists
     */
    public static void nameservice(URI uri, Configuration conf, ClusterSettings settings) throws IOException {
        Objects.requireNonNull(uri, "uri is null");
        if (!"hdfs".equals(uri.getScheme()) || uri.getPort() >= 0 || uri.getHost() == null) {
            return;
        }
        String[] known = conf.getTrimmedStrings("dfs.nameservices");
        if (!Arrays.asList(known).contains(uri.getHost())) {
            throw new IOException("HDFS nameservice " + uri.getHost() + " of " + uri + " is not in dfs.nameservices "
                    + Arrays.toString(known) + " of the Hadoop configuration folder "
                    + (settings.hadoopConfDir() == null ? "(none given)" : settings.hadoopConfDir()));
        }
    }

    /**
     * As {@code access}'s user: {@code root} is a folder owned by that user in which a probe file can be created and
     * deleted; or, before the daemon's first start, {@code root} does not exist yet and the user may create a folder
     * in its nearest existing parent (the daemons create their folder with its parents).
     *
     * @throws IOException naming the folder and what is wrong (not a folder, its owner, the write refused)
     */
    public static void usable(ClusterAccess access, URI uri, Path root) throws IOException {
        Objects.requireNonNull(access, "access is null");
        access.hdfsCall(uri, () -> {
            String user = UserGroupInformation.getCurrentUser().getShortUserName();
            try (FileSystem fs = FileSystem.newInstance(uri, access.configuration())) {
                Path existing = root;
                while (!fs.exists(existing)) {
                    existing = existing.getParent();
                }
                FileStatus status = fs.getFileStatus(existing);
                if (!status.isDirectory()) {
                    throw new IOException("HDFS path " + existing + " is a file, not a folder");
                }
                if (existing.equals(root) && !user.equals(status.getOwner())) {
                    throw new IOException("HDFS folder " + root + " is owned by " + status.getOwner() + ":"
                            + status.getGroup() + " (" + status.getPermission() + "), not by " + user);
                }
                Path probe = new Path(existing, ".eventindex-check-" + UUID.randomUUID());
                try {
                    fs.create(probe, false).close();
                } catch (IOException e) {
                    throw new IOException(existing.equals(root)
                            ? "HDFS folder " + root + " refuses a new file from " + user + ": " + firstLine(e)
                            : "HDFS folder " + root + " does not exist, and " + user + " may not create it in "
                            + existing + " (" + status.getOwner() + ":" + status.getGroup() + " "
                            + status.getPermission() + ")", e);
                }
                fs.delete(probe, false);
            }
            return null;
        });
    }

    private static String firstLine(Exception e) {
        String m = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        return m.lines().findFirst().orElse(m);
    }
}
