/**
 * Hosts for tests as Linux network namespaces, made and deleted by the test itself as root: {@link
 * org.eventindex.testing.hosts.HostNetwork} makes a host per name (its own address on a bridge that lives in its own
 * namespace, loopback up), starts nothing itself, and partitions the hosts (cut two from each other, isolate one,
 * heal) with nftables rules on the bridge, so that a partition is silence: connects time out, established connections
 * stall. {@link org.eventindex.testing.hosts.Host} is one host: the command line of a process on it
 * ({@code ip netns exec}; {@link org.eventindex.testing.ChildJvm#on} for a JVM) and a TCP probe from it.
 * Needs root, {@code ip} and {@code nft}; {@link org.eventindex.testing.hosts.HostNetwork#requireSupported()} fails a
 * CI run without them.
 */
package org.eventindex.testing.hosts;
