package org.cdlib.mrt.ingestqueue.runtime;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * A test class beside Merritt: one running service and Merritt's tools on one ZooKeeper
 * ({@link BesideMerrittRig}) for all its tests, each working on its own batches. Not the queue
 * fixture: that one wipes the queue before each test, under a service that runs across them.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class BesideMerrittTest {
    @TempDir
    static Path dir;
    BesideMerrittRig rig;

    @BeforeAll
    void start() throws Exception {
        rig = new BesideMerrittRig(dir, Map.of());
    }

    @AfterAll
    void stop() throws Exception {
        rig.close();
    }
}
