package org.cdlib.mrt.ingestqueue.runtime;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The soak's CI version ({@link SoakRig}, issue 43): 2 minutes of healthy work on three hosts and a
 * 3-node ensemble, the sweep every second, an operator at the API and Merritt's tools beside it;
 * fails on any false finding, any healthy lock broken, any job worked twice or by two holders at
 * once, inexact counters or an unclean fsck at the end. {@code -Dsoak.seed=S} repeats a run's
 * draws (the timing is the machine's); {@code -Dsoak.seconds=N} sets its length.
 * The 10-minute soak is {@code bench.SweepSoakBenchmark}.
 */
class SoakTest {
    @TempDir
    Path dir;

    @Test
    void healthyWorkLeftRunningBesideTheSweepTheOperatorAndMerritt() throws Exception {
        String given = System.getProperty("soak.seed", "");
        long seed = given.isBlank() ? new SecureRandom().nextLong() : Long.parseLong(given.strip());
        System.out.println("soak: seed " + seed + " (repeat with -Dsoak.seed=" + seed + ")");
        SoakRig.Result r = SoakRig.run(
                dir,
                new SoakRig.Settings(
                        Duration.ofSeconds(Integer.getInteger("soak.seconds", 120)),
                        seed,
                        Boolean.getBoolean("soak.kills"),
                        Duration.ofSeconds(30)));
        System.out.println("soak " + seed + " figures:\n" + r.figures());
        assertTrue(
                r.clean(),
                "soak seed " + seed + ":" + r.report() + "\ncounts: " + r.counts() + "\nfigures:\n" + r.figures());
    }
}
