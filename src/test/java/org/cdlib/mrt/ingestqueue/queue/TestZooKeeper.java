package org.cdlib.mrt.ingestqueue.queue;

import org.cdlib.mrt.ingestqueue.testing.QueueFixture;

/**
 * The queue fixture under its old name ({@code @RegisterExtension static TestZooKeeper ZK}), for the
 * api/ tests, being moved by another engineer at the same time;
 * they take {@link QueueFixture} by its name when they are next touched.
 */
public final class TestZooKeeper extends QueueFixture {
}
