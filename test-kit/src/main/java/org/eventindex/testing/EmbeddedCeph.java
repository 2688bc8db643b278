package org.eventindex.testing;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.eventindex.testing.hosts.Host;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * A real Ceph cluster for tests: one monitor, one OSD on {@code memstore}, and a RADOS Gateway (beast) serving S3 on
 * 127.0.0.1 with a free port. Every file (config, keyring, maps, data, sockets, pid files, logs) lives in the given
 * folder; authentication between daemons is off ({@code auth ... = none}); pools have size 1. The S3 user is created
 * with {@code radosgw-admin}. The daemons run in the foreground as child processes and are stopped by their pid
 * ({@link #close()}, and a shutdown hook should the JVM exit first).
 *
 * <p>The binaries come from Debian's {@code ceph-mon ceph-osd radosgw ceph-common} packages
 * ({@code deploy/ceph/install-ceph.sh}). Call {@link #requireInstalled()} first: it fails the test with the install
 * command when they are missing and {@code CI} is set, and skips it (a JUnit assumption) on a developer machine.
 */
public final class EmbeddedCeph implements AutoCloseable {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(EmbeddedCeph.class);
    /** The binaries the cluster needs, all from the Debian packages named in the class comment. */
    public static final List<String> BINARIES = List.of("ceph-mon", "ceph-osd", "radosgw", "radosgw-admin", "ceph",
            "ceph-authtool", "monmaptool");
    private static final String INSTALL = "deploy/ceph/install-ceph.sh (apt-get install -y --no-install-recommends "
            + "ceph-mon ceph-osd radosgw ceph-common)";
    private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration START_TIMEOUT = Duration.ofSeconds(90);
    private static final Duration STOP_GRACE = Duration.ofSeconds(5);

    private final Path dir;
    private final Host host;
    private final Path conf;
    private final List<Process> daemons = new ArrayList<>();
    private final Thread shutdownHook = new Thread(this::killDaemons, "embedded-ceph-stop");
    private URI endpoint;
    private String accessKey;
    private String secretKey;
    private S3Client admin;

    private EmbeddedCeph(Path dir, Host host) {
        this.host = host;
        this.dir = dir;
        this.conf = dir.resolve("ceph.conf");
    }

    /** The binaries of {@link #BINARIES} not found on the PATH; empty when Ceph is installed. */
    public static List<String> missingBinaries() {
        List<String> missing = new ArrayList<>();
        String path = System.getenv().getOrDefault("PATH", "");
        for (String binary : BINARIES) {
            boolean found = false;
            for (String d : path.split(java.io.File.pathSeparator)) {
                if (!d.isEmpty() && Files.isExecutable(Path.of(d, binary))) {
                    found = true;
                    break;
                }
            }
            if (!found) {
                missing.add(binary);
            }
        }
        return missing;
    }

    /**
     * Makes a test depend on the Ceph binaries: in CI their absence fails the test (AssertionError naming the
     * missing binaries and the install command); elsewhere it skips the test with the same reason
     * ({@link Prerequisites}).
     */
    public static void requireInstalled() {
        requireInstalled(missingBinaries(), Prerequisites.isCi());
    }

    /** {@link #requireInstalled()} with the facts given (for its own test). */
    static void requireInstalled(List<String> missing, boolean ci) {
        Prerequisites.require(missing.isEmpty(), "Ceph binaries " + missing + " are not on the PATH; install them with "
                + INSTALL, ci);
    }

    /**
     * Starts a cluster in {@code dir} (created if needed) and an S3 user with the given key pair.
     *
     * @throws IllegalStateException naming the step and the daemon's log when something does not come up
     */
    public static EmbeddedCeph start(Path dir, String accessKey, String secretKey) {
        return start(dir, Host.local(), accessKey, secretKey);
    }

    /**
     * Starts a cluster as {@link #start(Path, String, String)} does, with every daemon running on {@code host} and
     * bound to its address (the monitor, the OSD and the gateway), and every command run on it too: a process on
     * another host of the same network reaches the gateway at {@link #endpoint()}.
     */
    public static EmbeddedCeph start(Path dir, Host host, String accessKey, String secretKey) {
        requireNonNull(dir, "dir is null");
        requireNonNull(host, "host is null");
        requireNonNull(accessKey, "accessKey is null");
        requireNonNull(secretKey, "secretKey is null");
        EmbeddedCeph ceph = new EmbeddedCeph(dir.toAbsolutePath(), host);
        Runtime.getRuntime().addShutdownHook(ceph.shutdownHook);
        long start = System.nanoTime();
        try {
            ceph.bootstrap(accessKey, secretKey);
            LOG.info("Ceph (mon, memstore OSD, radosgw) serving S3 on {} after {} ms; files in {}", ceph.endpoint,
                    (System.nanoTime() - start) / 1_000_000, ceph.dir);
            return ceph;
        } catch (IOException | RuntimeException e) {
            ceph.close();
            throw new IllegalStateException("cannot start Ceph in " + dir + ": " + e.getMessage(), e);
        }
    }

    private void bootstrap(String accessKey, String secretKey) throws IOException {
        for (String sub : List.of("mon", "osd", "run", "log", "rgw")) {
            Files.createDirectories(dir.resolve(sub));
        }
        String fsid = UUID.randomUUID().toString();
        int monV2 = Ports.free();
        int monV1 = Ports.free();
        int rgwPort = Ports.free();
        String address = host.address();
        String monAddr = "[v2:" + address + ":" + monV2 + ",v1:" + address + ":" + monV1 + "]";
        Files.writeString(conf, EmbeddedCephConfig.render(dir, fsid, monAddr, address, rgwPort),
                StandardCharsets.UTF_8);
        Path keyring = dir.resolve("keyring");
        run("ceph-authtool", "--create-keyring", keyring.toString(), "--gen-key", "-n", "mon.", "--cap", "mon",
                "allow *");
        run("ceph-authtool", keyring.toString(), "--gen-key", "-n", "client.admin", "--cap", "mon", "allow *",
                "--cap", "osd", "allow *", "--cap", "mgr", "allow *");
        Path monmap = dir.resolve("monmap");
        run("monmaptool", "--create", "--fsid", fsid, "--addv", "a", monAddr, monmap.toString());
        run("ceph-mon", "-c", conf.toString(), "--mkfs", "-i", "a", "--monmap", monmap.toString(), "--keyring",
                keyring.toString());
        daemon("mon.a", "ceph-mon", "-f", "-c", conf.toString(), "-i", "a");

        String osdUuid = UUID.randomUUID().toString();
        String osdId = ceph("osd", "new", osdUuid).strip();
        Files.createDirectories(dir.resolve("osd").resolve("osd." + osdId));
        run("ceph-osd", "-c", conf.toString(), "-i", osdId, "--mkfs", "--osd-uuid", osdUuid);
        daemon("osd." + osdId, "ceph-osd", "-f", "-c", conf.toString(), "-i", osdId);
        waitFor("osd." + osdId + " up", () -> ceph("osd", "dump").lines()
                .anyMatch(l -> l.startsWith("osd." + osdId + " up")));

        daemon("client.rgw.ei", "radosgw", "-f", "-c", conf.toString(), "-n", "client.rgw.ei");
        URI uri = URI.create("http://" + address + ":" + rgwPort);
        waitFor("radosgw answering HTTP on " + uri, () -> answers(uri));
        this.endpoint = uri;
        run("radosgw-admin", "-c", conf.toString(), "user", "create", "--uid=eventindex",
                "--display-name=EventIndex tests", "--access-key=" + accessKey, "--secret-key=" + secretKey);
        this.accessKey = accessKey;
        this.secretKey = secretKey;
        this.admin = client(accessKey, secretKey);
    }

    /** A client of the gateway as the user of this key pair (path-style, as Ceph needs; the caller closes it). */
    public S3Client client(String accessKey, String secretKey) {
        requireNonNull(endpoint, "Ceph is not started");
        return S3Client.builder()
                .endpointOverride(endpoint).region(Region.US_EAST_1).forcePathStyle(true)
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(
                        requireNonNull(accessKey, "accessKey is null"), requireNonNull(secretKey, "secretKey is null"))))
                .httpClientBuilder(Apache5HttpClient.builder())
                .build();
    }

    /**
     * Creates another S3 user, {@code uid} with this key pair ({@code radosgw-admin user create}), as a site gives
     * each role its own user; a bucket policy names it {@code arn:aws:iam:::user/<uid>}.
     */
    public void createUser(String uid, String accessKey, String secretKey) {
        run("radosgw-admin", "-c", conf.toString(), "user", "create", "--uid=" + requireNonNull(uid, "uid is null"),
                "--display-name=EventIndex " + uid, "--access-key=" + requireNonNull(accessKey, "accessKey is null"),
                "--secret-key=" + requireNonNull(secretKey, "secretKey is null"));
    }

    /** Sets the bucket policy (a JSON document) of a bucket of the S3 user, as that user (the bucket's owner). */
    public void putBucketPolicy(String bucket, String policy) {
        admin.putBucketPolicy(b -> b.bucket(requireNonNull(bucket, "bucket is null"))
                .policy(requireNonNull(policy, "policy is null")));
    }

    /** {@code http://ADDRESS:PORT} of the RADOS Gateway (127.0.0.1, or its host's address); use path-style access and region us-east-1. */
    public URI endpoint() {
        return endpoint;
    }

    public String accessKey() {
        return accessKey;
    }

    public String secretKey() {
        return secretKey;
    }

    /** The folder holding every file of the cluster (logs in {@code log/}). */
    public Path dir() {
        return dir;
    }

    /** Creates a bucket owned by the S3 user (idempotent). */
    public void createBucket(String bucket) {
        requireNonNull(bucket, "bucket is null");
        if (admin.listBuckets().buckets().stream().noneMatch(b -> b.name().equals(bucket))) {
            admin.createBucket(b -> b.bucket(bucket));
        }
    }

    /** The keys of a bucket, sorted. */
    public List<String> keys(String bucket) {
        return admin.listObjectsV2Paginator(b -> b.bucket(requireNonNull(bucket, "bucket is null"))).contents()
                .stream().map(S3Object::key).sorted().toList();
    }

    /** The user metadata of an object (keys lower case), if it exists. */
    public Optional<Map<String, String>> userMetadata(String bucket, String key) {
        try {
            Map<String, String> out = new TreeMap<>();
            admin.headObject(b -> b.bucket(bucket).key(key)).metadata()
                    .forEach((k, v) -> out.put(k.toLowerCase(Locale.ROOT), v));
            return Optional.of(out);
        } catch (NoSuchKeyException e) {
            return Optional.empty();
        } catch (software.amazon.awssdk.services.s3.model.S3Exception e) {
            if (e.statusCode() == 404) {
                return Optional.empty();
            }
            throw e;
        }
    }

    /** Streams an object's bytes (the caller closes the stream). */
    public InputStream open(String bucket, String key) {
        return admin.getObject(b -> b.bucket(bucket).key(key));
    }

    /** Stops the gateway, the OSD and the monitor (each by its pid: SIGTERM, then SIGKILL). Idempotent. */
    @Override
    public void close() {
        if (admin != null) {
            admin.close();
            admin = null;
        }
        killDaemons();
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException alreadyShuttingDown) {
            // the hook is running or has run
        }
    }

    private synchronized void killDaemons() {
        for (int i = daemons.size() - 1; i >= 0; i--) {
            Process p = daemons.get(i);
            p.destroy();
            try {
                if (!p.waitFor(STOP_GRACE.toMillis(), TimeUnit.MILLISECONDS)) {
                    p.destroyForcibly().waitFor(STOP_GRACE.toMillis(), TimeUnit.MILLISECONDS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                p.destroyForcibly();
            }
        }
        daemons.clear();
    }

    private synchronized void daemon(String name, String... command) throws IOException {
        Path log = dir.resolve("log").resolve(name + ".out");
        Process p = new ProcessBuilder(host.command(List.of(command))).redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
        daemons.add(p);
    }

    private String ceph(String... args) {
        List<String> command = new ArrayList<>(List.of("ceph", "-c", conf.toString(), "--connect-timeout", "20"));
        command.addAll(List.of(args));
        return run(command.toArray(String[]::new));
    }

    /** Runs a command to completion; its output (stdout and stderr) is returned, or named in the failure. */
    private String run(String... command) {
        try {
            Path out = Files.createTempFile(dir.resolve("log"), command[0] + "-", ".out");
            Process p = new ProcessBuilder(host.command(List.of(command))).redirectErrorStream(true)
                    .redirectOutput(out.toFile()).start();
            if (!p.waitFor(COMMAND_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException(String.join(" ", command) + " did not finish within "
                        + COMMAND_TIMEOUT + "; output in " + out);
            }
            String text = Files.readString(out, StandardCharsets.UTF_8);
            if (p.exitValue() != 0) {
                throw new IllegalStateException(String.join(" ", command) + " exited with " + p.exitValue() + ": "
                        + text.strip() + " (daemon logs in " + dir.resolve("log") + ")");
            }
            return text;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run " + command[0] + " (is Ceph installed? " + INSTALL + ")", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted running " + command[0], e);
        }
    }

    private void waitFor(String what, java.util.function.BooleanSupplier condition) {
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (!condition.getAsBoolean()) {
            for (Process p : daemons) {
                if (!p.isAlive()) {
                    throw new IllegalStateException("a Ceph daemon (" + p.info().command().orElse("?")
                            + ") exited with " + p.exitValue() + " while waiting for " + what + "; logs in "
                            + dir.resolve("log"));
                }
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("timed out after " + START_TIMEOUT + " waiting for " + what
                        + "; logs in " + dir.resolve("log"));
            }
            LockSupport.parkNanos(Duration.ofMillis(100).toNanos());
        }
    }

    private static boolean answers(URI uri) {
        try {
            HttpURLConnection c = (HttpURLConnection) uri.toURL().openConnection();
            c.setConnectTimeout(1000);
            c.setReadTimeout(2000);
            int status = c.getResponseCode();
            c.disconnect();
            return status > 0;
        } catch (IOException e) {
            return false;
        }
    }
}
