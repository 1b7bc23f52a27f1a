package org.cdlib.mrt.ingestqueue.queue;

import org.cdlib.mrt.ingestqueue.testing.QueueFixture;

/**
 * The queue fixture under its old name ({@code @RegisterExtension static TestZooKeeper ZK}), for the
 * tests of rooms reshaped by others as it was made (api/, queue/lease, queue/outcome, queue/jobs);
 * they take {@link QueueFixture} by its name when they are next touched.
 */
public final class TestZooKeeper extends QueueFixture {
}
