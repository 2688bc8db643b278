package org.eventindex.deploy.chaos;

import org.eventindex.cli.CommandLines;
import org.eventindex.cli.VersionProvider;
import org.eventindex.config.SecretFile;
import org.eventindex.testing.EmbeddedS3;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

/**
 * An S3 server (the test kit's S3Proxy, objects in files) as a process of its own, for the harness on hosts, where
 * every service runs on its host: {@code S3ServerMain DATA_DIR ADDRESS PORT --access-key K --secret-key-file F
 * --bucket B} listens on {@code ADDRESS:PORT}, creates the bucket and serves until SIGTERM.
 */
@Command(name = "chaos-s3", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = "An S3 server (S3Proxy) for the harness on hosts, until SIGTERM.")
public final class S3ServerMain implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "DATA_DIR", description = "where the objects are kept, created if missing")
    private Path data;
    @Parameters(index = "1", paramLabel = "ADDRESS", description = "the address to listen on")
    private String address;
    @Parameters(index = "2", paramLabel = "PORT", description = "the port to listen on")
    private int port;
    @Option(names = "--access-key", required = true, description = "the access key requests are signed with")
    private String accessKey;
    @Option(names = "--secret-key-file", required = true, paramLabel = "FILE", description = "a mode-0600 file holding"
            + " the secret key")
    private Path secretKeyFile;
    @Option(names = "--bucket", required = true, description = "the bucket to create")
    private String bucket;

    private S3ServerMain() {
    }

    public static void main(String[] args) {
        int status = execute(args, System.out, System.err);
        if (status != 0) {
            System.exit(status);
        }
    }

    static int execute(String[] args, PrintStream out, PrintStream err) {
        return CommandLines.execute(new S3ServerMain(), args, out, err);
    }

    @Override
    public Integer call() throws Exception {
        EmbeddedS3 s3 = EmbeddedS3.start(data, accessKey, SecretFile.read(secretKeyFile, "S3 secret key"), address,
                port);
        s3.createBucket(bucket);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            s3.close();
            stopped.countDown();
        }, "s3-stop"));
        System.out.println("S3 server started: " + s3.endpoint() + ", bucket " + bucket + ", objects in " + data);
        stopped.await();
        return 0;
    }
}
