package org.eventindex.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.activemq.broker.BrokerPlugin;
import org.apache.activemq.command.ActiveMQDestination;
import org.apache.activemq.command.ActiveMQQueue;
import org.apache.activemq.filter.DestinationMapEntry;
import org.apache.activemq.jaas.GroupPrincipal;
import org.apache.activemq.security.AuthorizationEntry;
import org.apache.activemq.security.AuthorizationPlugin;
import org.apache.activemq.security.DefaultAuthorizationMap;
import org.apache.activemq.security.TempDestinationAuthorizationEntry;

/** {@link BrokerAccess} as ActiveMQ's authorization plugin and start-up destinations. */
final class BrokerAcls {
    private BrokerAcls() {
    }

    static BrokerPlugin plugin() {
        List<DestinationMapEntry> entries = new ArrayList<>();
        for (BrokerAccess.Entry e : BrokerAccess.entries()) {
            AuthorizationEntry a = new AuthorizationEntry();
            if (e.topic()) {
                a.setTopic(e.name());
            } else {
                a.setQueue(e.name());
            }
            a.setReadACLs(principals(e.read()));
            a.setWriteACLs(principals(e.write()));
            a.setAdminACLs(principals(e.admin()));
            entries.add(a);
        }
        DefaultAuthorizationMap map = new DefaultAuthorizationMap(entries);
        BrokerAccess.Entry t = BrokerAccess.temporaryDestinations();
        TempDestinationAuthorizationEntry temp = new TempDestinationAuthorizationEntry();
        temp.setReadACLs(principals(t.read()));
        temp.setWriteACLs(principals(t.write()));
        temp.setAdminACLs(principals(t.admin()));
        map.setTempDestinationAuthorizationEntry(temp);
        return new AuthorizationPlugin(map);
    }

    static ActiveMQDestination[] queues() {
        return BrokerAccess.queues().stream().map(ActiveMQQueue::new).toArray(ActiveMQDestination[]::new);
    }

    private static Set<Object> principals(Set<String> groups) {
        return groups.stream().map(GroupPrincipal::new).collect(Collectors.toSet());
    }
}
