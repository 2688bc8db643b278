package org.eventindex.brokerwatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import javax.xml.parsers.DocumentBuilderFactory;
import org.eventindex.testing.BrokerAccess;
import org.eventindex.testing.EmbeddedBroker;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * The shipped broker templates {@code broker-host/activemq/} (the two brokers of the shared-store pair) each grant
 * exactly what {@link BrokerAccess} grants (which the embedded broker of the tests and the demo enforces), have the
 * same limits, are secure as shipped, and form a pair: one shared KahaDB directory with a file locker, two broker
 * names.
 */
class BrokerTemplateTest {
    private static final Path DIR = Path.of("activemq");
    private static final List<String> PAIR = List.of("activemq-mq1.xml", "activemq-mq2.xml");

    @ParameterizedTest
    @ValueSource(strings = {"activemq-mq1.xml", "activemq-mq2.xml"})
    void authorizationEntriesAreTheOnesTheEmbeddedBrokerEnforces(String file) throws Exception {
        Set<BrokerAccess.Entry> shipped = new HashSet<>();
        NodeList entries = template(file).getElementsByTagName("authorizationEntry");
        for (int i = 0; i < entries.getLength(); i++) {
            Element e = (Element) entries.item(i);
            boolean topic = e.hasAttribute("topic");
            shipped.add(new BrokerAccess.Entry(topic ? e.getAttribute("topic") : e.getAttribute("queue"), topic,
                    groups(e, "read"), groups(e, "write"), groups(e, "admin")));
        }
        assertEquals(new HashSet<>(BrokerAccess.entries()), shipped);
    }

    @ParameterizedTest
    @ValueSource(strings = {"activemq-mq1.xml", "activemq-mq2.xml"})
    void temporaryQueueRightsAreTheOnesTheEmbeddedBrokerEnforces(String file) throws Exception {
        NodeList entries = template(file).getElementsByTagName("tempDestinationAuthorizationEntry");
        List<BrokerAccess.Entry> shipped = new ArrayList<>();
        for (int i = 0; i < entries.getLength(); i++) {
            Element e = (Element) entries.item(i);
            if (e.hasAttribute("read")) {
                BrokerAccess.Entry t = BrokerAccess.temporaryDestinations();
                shipped.add(new BrokerAccess.Entry(t.name(), false, groups(e, "read"), groups(e, "write"),
                        groups(e, "admin")));
            }
        }
        assertEquals(List.of(BrokerAccess.temporaryDestinations()), shipped);
    }

    @ParameterizedTest
    @ValueSource(strings = {"activemq-mq1.xml", "activemq-mq2.xml"})
    void startUpQueuesAreTheSame(String file) throws Exception {
        NodeList queues = template(file).getElementsByTagName("queue");
        List<String> names = new ArrayList<>();
        for (int i = 0; i < queues.getLength(); i++) {
            names.add(((Element) queues.item(i)).getAttribute("physicalName"));
        }
        assertEquals(BrokerAccess.queues(), names);
    }

    @ParameterizedTest
    @ValueSource(strings = {"activemq-mq1.xml", "activemq-mq2.xml"})
    void onlyATlsConnectorWithTheFrameAndConnectionLimits(String file) throws Exception {
        NodeList connectors = template(file).getElementsByTagName("transportConnector");
        assertEquals(1, connectors.getLength());
        String uri = ((Element) connectors.item(0)).getAttribute("uri");
        assertTrue(uri.startsWith("stomp+ssl://"), uri);
        assertTrue(uri.contains("wireFormat.maxFrameSize=" + EmbeddedBroker.MAX_FRAME_BYTES), uri);
        assertTrue(uri.contains("transport.maxConnections=" + EmbeddedBroker.MAX_CONNECTIONS), uri);
        assertFalse(uri.contains("SSLv3") || uri.contains("TLSv1.1"), uri);
    }

    @ParameterizedTest
    @ValueSource(strings = {"activemq-mq1.xml", "activemq-mq2.xml"})
    void shipsWithAuthenticationAndNoUsableLogin(String file) throws Exception {
        Document t = template(file);
        assertEquals(1, t.getElementsByTagName("jaasAuthenticationPlugin").getLength());
        assertFalse(Files.readString(DIR.resolve(file)).contains("anonymousAccessAllowed=\"true\""));
        assertTrue(load("users.properties").isEmpty(), "the template must not ship a password");
        Properties groups = load("groups.properties");
        assertEquals(Set.of(BrokerAccess.PRODUCERS, BrokerAccess.SUPERVISORS, BrokerAccess.CONSUMERS,
                BrokerAccess.OPERATORS, BrokerAccess.ADMINS), groups.stringPropertyNames());
        assertTrue(Files.readString(DIR.resolve("login.config")).contains("PropertiesLoginModule"));
    }

    private static Set<String> groups(Element e, String attribute) {
        Set<String> out = new HashSet<>();
        for (String g : e.getAttribute(attribute).split(",")) {
            if (!g.isBlank()) {
                out.add(g.strip());
            }
        }
        return out;
    }

    /**
     * The pair: both brokers keep their messages in the same KahaDB directory, locked by a shared file locker that a
     * standby retries every second with a 2 s lock keep-alive, under two broker names; apart from the name and the
     * comments the two files are the same (so the security rules cannot drift apart).
     */
    @Test
    void theTwoBrokersShareOneLockedStoreAndDifferOnlyInTheirNames() throws Exception {
        List<String> stores = new ArrayList<>();
        Set<String> names = new HashSet<>();
        for (String file : PAIR) {
            Document t = template(file);
            Element kahaDb = (Element) t.getElementsByTagName("kahaDB").item(0);
            stores.add(kahaDb.getAttribute("directory"));
            assertFalse(kahaDb.getAttribute("directory").contains("${activemq.data}"),
                    file + ": the store must be on the shared storage, not in the broker's own data directory");
            assertEquals("2000", kahaDb.getAttribute("lockKeepAlivePeriod"), file);
            NodeList lockers = kahaDb.getElementsByTagName("shared-file-locker");
            assertEquals(1, lockers.getLength(), file + ": a shared-file-locker");
            assertEquals("1000", ((Element) lockers.item(0)).getAttribute("lockAcquireSleepInterval"), file);
            names.add(((Element) t.getElementsByTagName("broker").item(0)).getAttribute("brokerName"));
        }
        assertEquals(1, Set.copyOf(stores).size(), "one shared store: " + stores);
        assertEquals(Set.of("eventindex-mq1", "eventindex-mq2"), names);
        assertEquals(withoutCommentsAndName(PAIR.get(0)), withoutCommentsAndName(PAIR.get(1)));
    }

    private static String withoutCommentsAndName(String file) throws IOException {
        return Files.readString(DIR.resolve(file)).replaceAll("(?s)<!--.*?-->", "")
                .replaceAll("brokerName=\"[^\"]*\"", "");
    }

    private static Document template(String file) throws Exception {
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        return f.newDocumentBuilder().parse(DIR.resolve(file).toFile());
    }

    private static Properties load(String name) throws IOException {
        Properties p = new Properties();
        try (InputStream in = Files.newInputStream(DIR.resolve(name))) {
            p.load(in);
        }
        return p;
    }
}
