package org.eventindex.rebuild;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.security.Credentials;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.kudu.client.KuduClient;
import org.eventindex.cluster.ClusterAccess;
import org.eventindex.cluster.HadoopConfDir;
import org.eventindex.cluster.KerberosLogin;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.Serializable;
import java.net.URI;
import java.security.PrivilegedExceptionAction;
import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;

import static java.util.Objects.requireNonNull;

/**
 * How a task reaches HDFS and Kudu as the driver's user, with no keytab of its own (decision 0074): the properties of
 * the driver's Hadoop configuration folder ({@code --hadoop-conf-dir}: the nameservice, Kerberos as the
 * authentication), and, when the driver logged in to Kerberos, the HDFS delegation tokens it obtained for its login
 * user and its Kudu authentication credentials. Spark's standalone scheduler obtains no delegation tokens (its YARN
 * and Kubernetes schedulers do), so the job carries them in its tasks. Made on the driver by {@link #grant}; used on
 * the executors (and by the driver's own repair).
 *
 * @param hadoopSettings  the folder's properties, set on each task's {@code new Configuration()} (empty: no folder)
 * @param user            the login user's short name, the tasks' HDFS user (null without Kerberos)
 * @param hdfsTokens      the delegation tokens, in Hadoop's token storage format (null without Kerberos)
 * @param kuduCredentials Kudu's exported authentication credentials (null without Kerberos)
 */
public record TaskAccess(Map<String, String> hadoopSettings, String user, byte[] hdfsTokens, byte[] kuduCredentials)
        implements Serializable {

    /** What the driver grants its tasks for the files they will read. */
    @FunctionalInterface
    public interface Grants {
        /** No folder, no Kerberos: the tasks' own Hadoop defaults (the benchmarks, embedded clusters). */
        Grants UNSECURED = paths -> new TaskAccess(Map.of(), null, null, null);

        /**
         * @param hdfsPaths the files the tasks read (their file systems get a delegation token each)
         * @throws IOException naming the file system when a NameNode refuses or does not answer
         */
        TaskAccess forFiles(Collection<String> hdfsPaths) throws IOException;
    }

    /** A piece of a task that reads HDFS with the configuration given. */
    @FunctionalInterface
    public interface HadoopWork<T> {
        T run(Configuration conf) throws IOException;
    }

    public TaskAccess {
        hadoopSettings = Map.copyOf(requireNonNull(hadoopSettings, "hadoopSettings is null"));
        if ((user == null) != (hdfsTokens == null)) {
            throw new IllegalArgumentException("delegation tokens need their user, and a user its tokens");
        }
    }

    /**
     * On the driver: the folder's properties of {@code access}, and when it logged in, a delegation token of each
     * file system of {@code hdfsPaths} (a path without a scheme is on {@code fs.defaultFS}) obtained as the login
     * user, with the login user (by its principal) as their renewer, and {@code client}'s Kudu credentials.
     * {@code renewal} keeps the tokens valid while the job runs.
     */
    static TaskAccess grant(ClusterAccess access, KuduClient client, Collection<String> hdfsPaths,
                            TokenRenewal renewal) throws IOException {
        Map<String, String> settings = HadoopConfDir.properties(access.settings());
        Optional<KerberosLogin> login = access.login();
        if (login.isEmpty()) {
            return new TaskAccess(settings, null, null, null);
        }
        String user = login.get().ugi().getShortUserName();
        // the renewer named by its principal: the NameNode maps it to the short name with its own rules, as it maps
        // the driver's login when the driver renews (a short name mapped here could differ from the NameNode's)
        String renewer = login.get().ugi().getUserName();
        Configuration conf = access.configuration();
        Credentials credentials = new Credentials();
        for (URI fs : fileSystems(hdfsPaths, conf)) {
            try (FileSystem hdfs = access.fileSystem(fs)) {
                access.hdfsCall(fs, () -> hdfs.addDelegationTokens(renewer, credentials));
            }
        }
        renewal.track(credentials);
        ByteArrayOutputStream tokens = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(tokens)) {
            credentials.writeTokenStorageToStream(out);
        }
        return new TaskAccess(settings, user, tokens.toByteArray(), client.exportAuthenticationCredentials());
    }

    /** The distinct file systems ({@code scheme://authority/}) of the paths, sorted. */
    static Collection<URI> fileSystems(Collection<String> hdfsPaths, Configuration conf) {
        TreeSet<URI> out = new TreeSet<>();
        for (String p : hdfsPaths) {
            URI uri;
            try {
                uri = new Path(p).toUri();
            } catch (IllegalArgumentException e) {
                continue; // the dataset's task reports its path
            }
            if (uri.getScheme() == null) {
                uri = FileSystem.getDefaultUri(conf);
            }
            out.add(URI.create(uri.getScheme() + "://" + (uri.getAuthority() == null ? "" : uri.getAuthority())
                    + "/"));
        }
        return out;
    }

    /** A task's Hadoop configuration: Hadoop's defaults (and the class path's) with the folder's properties over. */
    public Configuration hadoopConfiguration() {
        Configuration conf = new Configuration();
        hadoopSettings.forEach(conf::set);
        return conf;
    }

    /** A Kudu client of {@code masters} that authenticates with the driver's credentials (when there are). */
    public KuduClient kuduClient(String masters) {
        KuduClient client = new KuduClient.KuduClientBuilder(masters).build();
        if (kuduCredentials != null) {
            client.importAuthenticationCredentials(kuduCredentials);
        }
        return client;
    }

    /**
     * Runs {@code work} with {@link #hadoopConfiguration()}, as the driver's user holding its delegation tokens when
     * there are (the HDFS clients it opened through {@code FileSystem.get} are closed after), else as this process's
     * user.
     */
    public <T> T asDriverUser(HadoopWork<T> work) throws IOException {
        Configuration conf = hadoopConfiguration();
        if (hdfsTokens == null) {
            return work.run(conf);
        }
        UserGroupInformation ugi = UserGroupInformation.createRemoteUser(user);
        Credentials credentials = new Credentials();
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(hdfsTokens))) {
            credentials.readTokenStorageStream(in);
        }
        ugi.addCredentials(credentials);
        try {
            return ugi.doAs((PrivilegedExceptionAction<T>) () -> work.run(conf));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted reading HDFS as " + user);
        } finally {
            closeFileSystems(ugi);
        }
    }

    private static void closeFileSystems(UserGroupInformation ugi) {
        try {
            FileSystem.closeAllForUGI(ugi);
        } catch (IOException ignored) {
            // the task's outcome is what it read; an HDFS client that fails to close leaks nothing past the task
        }
    }
}
