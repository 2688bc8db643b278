package org.eventindex.producer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.eventindex.proto.EventIndexProtos.Header_p1;
import org.eventindex.spb.SpbContentLimits;
import org.eventindex.testing.SpbFixtures;
import org.eventindex.testing.SpbFixtures.Raw;
import org.eventindex.spb.SpbFormatException.Problem;
import org.eventindex.spb.SpbMessageType;
import org.eventindex.testing.EmbeddedBroker;
import org.eventindex.testing.EmbeddedS3;
import org.eventindex.testing.TcpProxy;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A corpus of malformed SPB files, generated here: each must exit with the bad-input code, name the file and the
 * problem on stderr, and touch nothing remote. The broker and S3 sit behind proxies that count connections, so
 * "uploads nothing" is checked at the socket, not only by listing the bucket.
 */
class MalformedSpbTest {
    @TempDir
    static Path shared;
    private static EmbeddedBroker broker;
    private static EmbeddedS3 s3;
    private static TcpProxy brokerProxy;
    private static TcpProxy s3Proxy;

    @TempDir
    Path dir;

    @BeforeAll
    static void startServices() {
        broker = EmbeddedBroker.start(shared.resolve("broker"));
        s3 = EmbeddedS3.start(shared.resolve("s3"), "ak", "sk");
        s3.createBucket("eventindex");
        brokerProxy = TcpProxy.start("127.0.0.1", broker.stompPort());
        s3Proxy = TcpProxy.start("127.0.0.1", s3.endpoint().getPort());
    }

    @AfterAll
    static void stopServices() {
        brokerProxy.close();
        s3Proxy.close();
        s3.close();
        broker.close();
    }

    static Stream<Arguments> corpus() {
        byte[] valid = Raw.valid(20).gzip();
        byte[] corrupt = valid.clone();
        for (int i = 20; i < 40; i++) {
            corrupt[i] ^= (byte) 0x5a;
        }
        byte[] header = SpbFixtures.header().toByteArray();
        return Stream.of(
                Arguments.of("empty file", new byte[0], Problem.EMPTY),
                Arguments.of("empty gzip stream", Raw.gzip(new byte[0]), Problem.EMPTY),
                Arguments.of("not gzip at all", "run event\n1 2\n".getBytes(StandardCharsets.US_ASCII),
                        Problem.BAD_GZIP),
                Arguments.of("gzip header cut off", Arrays.copyOf(valid, 5), Problem.TRUNCATED),
                Arguments.of("truncated gzip", Arrays.copyOf(valid, valid.length / 2), Problem.TRUNCATED),
                Arguments.of("corrupt deflate data", corrupt, Problem.BAD_GZIP),
                Arguments.of("bad magic", new Raw().u32(0x12345678).u32(1).gzip(), Problem.BAD_MAGIC),
                Arguments.of("magic cut off", Raw.gzip(new byte[] {(byte) 0xc7, (byte) 0xc8}), Problem.TRUNCATED),
                Arguments.of("wrong file version", new Raw().u32(0x6e56c8c7).u32(2)
                        .message(SpbMessageType.HEADER, SpbFixtures.header()).gzip(), Problem.BAD_VERSION),
                Arguments.of("unknown message type", Raw.start().u32(9 << 8 | 1).u32(0).gzip(),
                        Problem.UNKNOWN_TYPE),
                Arguments.of("unknown message version", Raw.start().u32(1 << 8 | 2).u32(header.length)
                        .bytes(header).gzip(), Problem.BAD_MESSAGE_VERSION),
                Arguments.of("length past end of file", Raw.start().u32(1 << 8 | 1).u32(1000)
                        .bytes(header).gzip(), Problem.TRUNCATED),
                Arguments.of("huge declared length", Raw.start().u32(1 << 8 | 1).u32(0x7fffffff).gzip(),
                        Problem.OVERSIZE),
                Arguments.of("negative declared length", Raw.start().u32(1 << 8 | 1).u32(-1).gzip(),
                        Problem.OVERSIZE),
                Arguments.of("garbage instead of protobuf", Raw.start().u32(1 << 8 | 1).u32(4)
                        .u32(0xffffffff).gzip(), Problem.BAD_PROTOBUF),
                Arguments.of("header missing required fields", Raw.start().message(SpbMessageType.HEADER,
                        Header_p1.newBuilder().setTaskID("1.G").buildPartial()).gzip(), Problem.BAD_PROTOBUF),
                Arguments.of("first message not a header", Raw.start()
                        .message(SpbMessageType.BEGIN_GUID, SpbFixtures.begin(SpbFixtures.GUID_A)).gzip(),
                        Problem.BAD_ORDER),
                Arguments.of("event outside BeginGUID/EndGUID", Raw.start()
                        .message(SpbMessageType.HEADER, SpbFixtures.header())
                        .message(SpbMessageType.EVENT, SpbFixtures.event(SpbFixtures.RUN, 1)).gzip(), Problem.BAD_ORDER),
                Arguments.of("EndGUID without BeginGUID", Raw.start()
                        .message(SpbMessageType.HEADER, SpbFixtures.header())
                        .message(SpbMessageType.END_GUID, SpbFixtures.end(0)).gzip(), Problem.BAD_ORDER),
                Arguments.of("missing EndGUID", Raw.start().message(SpbMessageType.HEADER, SpbFixtures.header())
                        .message(SpbMessageType.BEGIN_GUID, SpbFixtures.begin(SpbFixtures.GUID_A))
                        .message(SpbMessageType.TRAILER, SpbFixtures.trailer(0, 1)).gzip(), Problem.BAD_ORDER),
                Arguments.of("EndGUID count disagrees", Raw.start().message(SpbMessageType.HEADER,
                        SpbFixtures.header())
                        .message(SpbMessageType.BEGIN_GUID, SpbFixtures.begin(SpbFixtures.GUID_A))
                        .message(SpbMessageType.EVENT, SpbFixtures.event(SpbFixtures.RUN, 1))
                        .message(SpbMessageType.END_GUID, SpbFixtures.end(2)).gzip(), Problem.COUNT_MISMATCH),
                Arguments.of("trailer event count disagrees", withTrailer(SpbFixtures.trailer(3, 1)),
                        Problem.COUNT_MISMATCH),
                Arguments.of("trailer file count disagrees", withTrailer(SpbFixtures.trailer(2, 2)),
                        Problem.COUNT_MISMATCH),
                Arguments.of("no trailer", Raw.start().message(SpbMessageType.HEADER, SpbFixtures.header())
                        .message(SpbMessageType.BEGIN_GUID, SpbFixtures.begin(SpbFixtures.GUID_A))
                        .message(SpbMessageType.END_GUID, SpbFixtures.end(0)).gzip(), Problem.TRUNCATED),
                Arguments.of("data after trailer", Raw.valid(1).message(SpbMessageType.EVENT,
                        SpbFixtures.event(SpbFixtures.RUN, 9)).gzip(), Problem.BAD_ORDER),
                Arguments.of("same GUID twice", Raw.start().message(SpbMessageType.HEADER, SpbFixtures.header())
                        .message(SpbMessageType.BEGIN_GUID, SpbFixtures.begin(SpbFixtures.GUID_A))
                        .message(SpbMessageType.END_GUID, SpbFixtures.end(0))
                        .message(SpbMessageType.BEGIN_GUID, SpbFixtures.begin(SpbFixtures.GUID_A))
                        .message(SpbMessageType.END_GUID, SpbFixtures.end(0))
                        .message(SpbMessageType.TRAILER, SpbFixtures.trailer(0, 2)).gzip(), Problem.BAD_CONTENT),
                // Hostile content within the message limit (SpbContentLimits): the same limits as the consumer's.
                Arguments.of("L1Menu over its limit", withMenuAndEvent(SpbFixtures.menu().toBuilder()
                        .setL1Menu("L".repeat(SpbContentLimits.MENU_BYTES + 1)).build(), SpbFixtures.event(SpbFixtures.RUN, 1)),
                        Problem.OVERSIZE),
                Arguments.of("EF mask over its limit", withMenuAndEvent(SpbFixtures.menu(), SpbFixtures.event(SpbFixtures.RUN, 1)
                        .toBuilder().setEFPassedTrigMask("!".repeat(SpbContentLimits.HLT_MASK_BYTES + 1)).build()),
                        Problem.OVERSIZE),
                Arguments.of("token over its limit", withMenuAndEvent(SpbFixtures.menu(), SpbFixtures.event(SpbFixtures.RUN, 1)
                        .toBuilder().setEitoken(0, SpbFixtures.event(SpbFixtures.RUN, 1).getEitoken(0).toBuilder()
                                .setToken("T".repeat(SpbContentLimits.TOKEN_BYTES + 1))).build()), Problem.OVERSIZE),
                Arguments.of("menus over their count", withMenus(SpbContentLimits.MENUS_PER_FILE + 1),
                        Problem.OVERSIZE),
                // Content the consumer or the loader would refuse (ContentRules, issue 30): refused here first.
                Arguments.of("malformed L1 mask", withMenuAndEvent(SpbFixtures.menu(), SpbFixtures.event(
                        SpbFixtures.RUN, 1).toBuilder().setL1PassedTrigMask("B!K6!NC#").build()), Problem.BAD_CONTENT),
                Arguments.of("token without DB", withMenuAndEvent(SpbFixtures.menu(), SpbFixtures.event(
                        SpbFixtures.RUN, 1).toBuilder().setEitoken(0, SpbFixtures.event(SpbFixtures.RUN, 1)
                        .getEitoken(0).toBuilder().setToken("[CNT=x][CLID=y]")).build()), Problem.BAD_CONTENT),
                Arguments.of("an event of another run", withMenuAndEvent(SpbFixtures.menu(), SpbFixtures.event(
                        SpbFixtures.RUN + 1, 1)), Problem.BAD_CONTENT),
                Arguments.of("no input file", Raw.start().message(SpbMessageType.HEADER, SpbFixtures.header())
                        .message(SpbMessageType.TRAILER, SpbFixtures.trailer(0, 0)).gzip(), Problem.BAD_CONTENT));
    }

    private static byte[] withMenuAndEvent(org.eventindex.proto.EventIndexProtos.TriggerMenu_p1 menu,
                                           org.eventindex.proto.EventIndexProtos.EIEvent_p1 event) {
        return Raw.start().message(SpbMessageType.HEADER, SpbFixtures.header())
                .message(SpbMessageType.BEGIN_GUID, SpbFixtures.begin(SpbFixtures.GUID_A))
                .message(SpbMessageType.TRIGGER_MENU, menu)
                .message(SpbMessageType.EVENT, event)
                .message(SpbMessageType.END_GUID, SpbFixtures.end(1))
                .message(SpbMessageType.TRAILER, SpbFixtures.trailer(1, 1)).gzip();
    }

    private static byte[] withMenus(int menus) {
        Raw r = Raw.start().message(SpbMessageType.HEADER, SpbFixtures.header())
                .message(SpbMessageType.BEGIN_GUID, SpbFixtures.begin(SpbFixtures.GUID_A));
        for (int i = 0; i < menus; i++) {
            r.message(SpbMessageType.TRIGGER_MENU, SpbFixtures.menu());
        }
        return r.message(SpbMessageType.END_GUID, SpbFixtures.end(0))
                .message(SpbMessageType.TRAILER, SpbFixtures.trailer(0, 1)).gzip();
    }

    /**
     * The object of issue 19 (70 TriggerMenus of a 15 MiB L1Menu of one character, each under the 16 MiB message
     * limit; about 1 MB after gzip -9): {@code --dry-run} used to call it valid. It is bad input now.
     */
    @Test
    void theMenuBombOfIssue19IsBadInputForADryRun() throws IOException {
        byte[] menu = new Raw().message(SpbMessageType.TRIGGER_MENU, SpbFixtures.menu().toBuilder()
                .setL1Menu("L".repeat(15 << 20)).build()).plain();
        Path file = dir.resolve("menu-bomb.ei.spb");
        try (java.io.OutputStream gz = new java.util.zip.GZIPOutputStream(Files.newOutputStream(file), 1 << 16) {
            {
                def.setLevel(java.util.zip.Deflater.BEST_COMPRESSION);
            }
        }) {
            gz.write(Raw.start().message(SpbMessageType.HEADER, SpbFixtures.header())
                    .message(SpbMessageType.BEGIN_GUID, SpbFixtures.begin(SpbFixtures.GUID_A)).plain());
            for (int i = 0; i < 70; i++) {
                gz.write(menu);
            }
            Raw rest = new Raw();
            for (int i = 0; i < 20; i++) {
                rest.message(SpbMessageType.EVENT, SpbFixtures.event(SpbFixtures.RUN, i + 1));
            }
            gz.write(rest.message(SpbMessageType.END_GUID, SpbFixtures.end(20))
                    .message(SpbMessageType.TRAILER, SpbFixtures.trailer(20, 1)).plain());
        }
        assertTrue(Files.size(file) < 2 << 20, Files.size(file) + " bytes");
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = new ProducerCli(Map.of(), new PrintStream(new ByteArrayOutputStream(), true,
                StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8), TestRetry.fast(),
                Clock.systemUTC()).run(List.of(file.toString(), "--dry-run", "--s3-endpoint", "http://127.0.0.1:9",
                "--bucket", "b12"));
        String stderr = err.toString(StandardCharsets.UTF_8).strip();
        assertEquals(ExitCode.BAD_INPUT.code(), code, stderr);
        assertTrue(stderr.contains(file.toString()) && stderr.contains(": OVERSIZE: "), stderr);
    }

    /** One GUID with two events, then the given trailer. */
    private static byte[] withTrailer(org.eventindex.proto.EventIndexProtos.Trailer_p1 trailer) {
        return Raw.start().message(SpbMessageType.HEADER, SpbFixtures.header())
                .message(SpbMessageType.BEGIN_GUID, SpbFixtures.begin(SpbFixtures.GUID_A))
                .message(SpbMessageType.EVENT, SpbFixtures.event(SpbFixtures.RUN, 1))
                .message(SpbMessageType.EVENT, SpbFixtures.event(SpbFixtures.RUN, 2))
                .message(SpbMessageType.END_GUID, SpbFixtures.end(2))
                .message(SpbMessageType.TRAILER, trailer).gzip();
    }

    @Test
    void corpusIsLargeAndCoversEveryProblemTheProducerCanMeet() {
        List<Arguments> all = corpus().toList();
        assertTrue(all.size() >= 15, "corpus has " + all.size() + " files");
        long kinds = all.stream().map(a -> a.get()[2]).distinct().count();
        assertEquals(Problem.values().length, kinds, "problems covered: "
                + all.stream().map(a -> a.get()[2]).distinct().toList());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("corpus")
    void malformedFileIsBadInputNamedAndNothingIsContacted(String name, byte[] content, Problem problem)
            throws IOException {
        Path file = Files.write(dir.resolve(name.replace(' ', '_').replace('/', '_') + ".ei.spb"), content);
        int brokerConnections = brokerProxy.connections();
        int s3Connections = s3Proxy.connections();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = new ProducerCli(Map.of(ProducerArgs.ENV_S3_ACCESS_KEY, "ak", ProducerArgs.ENV_S3_SECRET_KEY, "sk"),
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8),
                TestRetry.fast(), Clock.systemUTC())
                .run(List.of(file.toString(), "--brokers", brokerProxy.endpoint(), "--s3-endpoint",
                        "http://" + s3Proxy.endpoint(), "--bucket", "eventindex", "--json"));
        String stderr = err.toString(StandardCharsets.UTF_8).strip();
        assertEquals(ExitCode.BAD_INPUT.code(), code, stderr);
        assertEquals(1, stderr.lines().count(), stderr);
        assertTrue(stderr.contains(file.toString()), stderr);
        assertTrue(stderr.contains(": " + problem + ": "), "expected " + problem + " in: " + stderr);
        assertTrue(out.toString(StandardCharsets.UTF_8).contains("\"exitCode\":2"), out.toString());
        assertEquals(brokerConnections, brokerProxy.connections(), "the broker was contacted");
        assertEquals(s3Connections, s3Proxy.connections(), "S3 was contacted");
        assertEquals(List.of(), s3.keys("eventindex"));
    }

    static Stream<Arguments> hostileNames() {
        return Stream.of(
                Arguments.of("traversal dataset", SpbFixtures.header().toBuilder().setInputDsName("../../etc/x").build(),
                        "inputDsName is not a dataset name"),
                Arguments.of("dataset with separator", SpbFixtures.header().toBuilder()
                        .setInputDsName("data17_13TeV.00327636.physics_Main.merge.AOD.f8/../x").build(),
                        "inputDsName is not a dataset name"),
                Arguments.of("dataset with control character", SpbFixtures.header().toBuilder()
                        .setInputDsName("data17_13TeV.00327636.physics_Main.merge.AOD.f8\n38").build(),
                        "inputDsName is not a dataset name"),
                Arguments.of("traversal taskID", SpbFixtures.header().toBuilder().setTaskID("../1.G").build(),
                        "taskID '../1.G' is not"),
                Arguments.of("traversal jobID", SpbFixtures.header().toBuilder().setJobID("../../x").build(),
                        "jobID '../../x' may only hold"));
    }

    /** Names from the SPB header become object keys and dataset keys: hostile ones never leave the producer. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("hostileNames")
    void hostileNamesInTheHeaderAreBadInputAndNothingIsStored(String name,
            org.eventindex.proto.EventIndexProtos.Header_p1 header, String reason) throws IOException {
        Path file = Files.write(dir.resolve(name.replace(' ', '_') + ".ei.spb"), Raw.start()
                .message(SpbMessageType.HEADER, header)
                .message(SpbMessageType.BEGIN_GUID, SpbFixtures.begin(SpbFixtures.GUID_A))
                .message(SpbMessageType.END_GUID, SpbFixtures.end(0))
                .message(SpbMessageType.TRAILER, SpbFixtures.trailer(0, 1)).gzip());
        int brokerConnections = brokerProxy.connections();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = new ProducerCli(Map.of(ProducerArgs.ENV_S3_ACCESS_KEY, "ak", ProducerArgs.ENV_S3_SECRET_KEY, "sk"),
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), TestRetry.fast(), Clock.systemUTC())
                .run(List.of(file.toString(), "--brokers", brokerProxy.endpoint(), "--s3-endpoint",
                        "http://" + s3Proxy.endpoint(), "--bucket", "eventindex"));
        String stderr = err.toString(StandardCharsets.UTF_8).strip();
        assertEquals(ExitCode.BAD_INPUT.code(), code, stderr);
        assertTrue(stderr.contains(file.toString()) && stderr.contains(reason), stderr);
        assertEquals(brokerConnections, brokerProxy.connections(), "the broker was contacted");
        assertEquals(List.of(), s3.keys("eventindex"));
    }

    /** Sanity check of the corpus builder: the same framing with valid content is accepted. */
    @Test
    void validFileFromTheSameBuilderIsAccepted() throws IOException {
        Path file = Files.write(dir.resolve("valid.ei.spb"), Raw.valid(3).gzip());
        ByteArrayOutputStream sink = new ByteArrayOutputStream();
        int code = new ProducerCli(Map.of(), new PrintStream(sink, true, StandardCharsets.UTF_8),
                new PrintStream(sink, true, StandardCharsets.UTF_8), TestRetry.fast(), Clock.systemUTC())
                .run(List.of(file.toString(), "--dry-run", "--s3-endpoint", "http://127.0.0.1:9", "--bucket", "b12"));
        assertEquals(0, code, sink.toString(StandardCharsets.UTF_8));
    }
}
