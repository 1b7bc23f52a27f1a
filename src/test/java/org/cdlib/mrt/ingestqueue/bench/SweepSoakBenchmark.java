package org.cdlib.mrt.ingestqueue.bench;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import org.cdlib.mrt.ingestqueue.runtime.SoakRig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The soak of issue 43 at its full length (10 minutes by default, {@code -Dsoak.minutes=N}): three
 * service JVMs on a 3-node ensemble, continuous submissions, the sweep every second, an operator at
 * the API and Merritt's tools beside the queue ({@link SoakRig}); prints the figures every 30 s and
 * the verdict: 0 false findings, 0 healthy locks broken, 0 jobs worked twice, counters exact and
 * fsck clean at the end. Not part of the suite (its name is no test's); run it with
 * {@code mvn -o -B test -Dtest=SweepSoakBenchmark -Dsurefire.failIfNoSpecifiedTests=false [-Dsoak.minutes=10]
 * [-Dsoak.seed=S] [-Dsoak.kills=true]}; the output is in
 * {@code target/surefire-reports/org.cdlib.mrt.ingestqueue.bench.SweepSoakBenchmark-output.txt}. Its
 * JVMs start from the test classpath, so it runs under surefire rather than {@code exec:java}.
 */
class SweepSoakBenchmark {
    @TempDir
    Path dir;

    @Test
    void soak() throws Exception {
        String given = System.getProperty("soak.seed", "");
        long seed = given.isBlank() ? new SecureRandom().nextLong() : Long.parseLong(given.strip());
        Duration length = Duration.ofMinutes(Integer.getInteger("soak.minutes", 10));
        System.out.println("sweep soak: " + length + ", seed " + seed);
        SoakRig.Result r = SoakRig.run(
                dir, new SoakRig.Settings(length, seed, Boolean.getBoolean("soak.kills"), Duration.ofSeconds(30)));
        System.out.println("sweep soak " + seed + " figures:\n" + r.figures() + "\ncounts: " + r.counts()
                + "\nverdict: " + (r.clean() ? "clean" : r.report()));
        assertTrue(r.clean(), r.report());
    }
}
