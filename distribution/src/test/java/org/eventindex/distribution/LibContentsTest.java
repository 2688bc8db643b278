package org.eventindex.distribution;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.zip.ZipEntry;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** {@link LibContents} on small jars written here: a clean lib/, then each kind of test artifact. */
final class LibContentsTest {
    private static final String VERSION = "1.2.3";

    @TempDir
    Path lib;

    @Test
    void aLibOfRuntimeJarsHasNoProblem() throws IOException {
        cleanLib();
        assertEquals(List.of(), LibContents.problems(lib, VERSION));
    }

    @Test
    void testArtifactsAreFoundByNameAndByContent() throws IOException {
        cleanLib();
        jar("junit-4.13.2.jar", null, "junit/framework/Test.class");
        jar("eventindex-kudu-loader-1.2.3-tests.jar", VERSION, "org/eventindex/testing/EmbeddedKudu.class");
        jar("slf4j-simple-2.0.20.jar", null, "org/slf4j/simple/SimpleLogger.class");
        jar("innocent-1.0.jar", null, "org/apache/hadoop/hdfs/MiniDFSCluster.class");
        jar("shaded-1.0.jar", null, "org/gaul/s3proxy/S3Proxy.class");
        jar("broker-inside-1.0.jar", null, "org/apache/activemq/broker/BrokerService.class");
        jar("tests-inside-1.0.jar", null, "org/junit/jupiter/api/Test.class");
        assertEquals(List.of(
                "broker-inside-1.0.jar: holds test code org/apache/activemq/broker/BrokerService.class",
                "eventindex-kudu-loader-1.2.3-tests.jar: a test artifact by its name",
                "innocent-1.0.jar: holds test code org/apache/hadoop/hdfs/MiniDFSCluster.class",
                "junit-4.13.2.jar: a test artifact by its name",
                "shaded-1.0.jar: holds test code org/gaul/s3proxy/S3Proxy.class",
                "slf4j-simple-2.0.20.jar: a test artifact by its name",
                "tests-inside-1.0.jar: holds test code org/junit/jupiter/api/Test.class"),
                LibContents.problems(lib, VERSION));
    }

    @Test
    void ourJarsCarryTheVersionAndLogbackAndTheProducerJarAreThere() throws IOException {
        jar("eventindex-supervisor-1.2.3.jar", "1.2.2", "org/eventindex/supervisor/SupervisorMain.class");
        jar("eventindex-consumer-1.2.3.jar", null, "org/eventindex/consumer/ConsumerMain.class");
        assertEquals(List.of(
                "eventindex-consumer-1.2.3.jar: manifest without Implementation-Title and -Version 1.2.3",
                "eventindex-supervisor-1.2.3.jar: manifest without Implementation-Title and -Version 1.2.3",
                "no logback-classic 1.5", "no eventindex-producer.jar"), LibContents.problems(lib, VERSION));
    }

    private void cleanLib() throws IOException {
        jar("eventindex-producer.jar", VERSION, "org/eventindex/producer/ProducerMain.class");
        jar("eventindex-lookup-1.2.3.jar", VERSION, "org/eventindex/lookup/LookupMain.class");
        jar("logback-classic-1.5.38.jar", null, "ch/qos/logback/classic/Logger.class");
        jar("hadoop-client-runtime-3.4.2.jar", null, "org/apache/hadoop/shaded/Foo.class");
    }

    /** A jar holding one empty entry, with Implementation-Title/-Version when {@code version} is not null. */
    private void jar(String name, String version, String entry) throws IOException {
        Manifest m = new Manifest();
        m.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        if (version != null) {
            m.getMainAttributes().put(Attributes.Name.IMPLEMENTATION_TITLE, name);
            m.getMainAttributes().put(Attributes.Name.IMPLEMENTATION_VERSION, version);
        }
        try (OutputStream out = Files.newOutputStream(lib.resolve(name));
             JarOutputStream jar = new JarOutputStream(out, m)) {
            jar.putNextEntry(new ZipEntry(entry));
            jar.closeEntry();
        }
    }
}
