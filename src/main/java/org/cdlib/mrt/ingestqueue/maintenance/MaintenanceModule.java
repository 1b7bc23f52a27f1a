package org.cdlib.mrt.ingestqueue.maintenance;

import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import org.apache.camel.Processor;
import org.cdlib.mrt.ingestqueue.history.OpenIndexPass;
import org.cdlib.mrt.ingestqueue.module.QueueContext;
import org.cdlib.mrt.ingestqueue.module.QueueModule;
import org.cdlib.mrt.ingestqueue.queue.admin.AdminActions;
import org.cdlib.mrt.ingestqueue.queue.fsck.ConsistencyCheck;

/**
 * Binds {@code adminActions}, {@code consistencyCheck}, {@code consistencySweep} ({@code ingest.fsck.batches-per-pass},
 * 200) and {@code cleanupStep} ({@code ingest.cleanup.retention}, P7D; {@code ingest.cleanup.failed-retention}, P30D;
 * {@code ingest.history.keep-jobs}, 10000: the finished jobs ZooKeeper keeps at most;
 * {@code ingest.history.retention}, unset: how long history keeps them, for good when unset) and
 * {@code batchHoldRelease} (the jobs of released batch holds, issue 45) and {@code openIndexPass} (the search
 * index of open work, issue 45; nothing when the service keeps no history).
 */
public final class MaintenanceModule implements QueueModule {

    @Override
    public Map<String, Class<?>> beans() {
        return Map.of("adminActions", AdminActions.class, "batchHoldRelease", BatchHoldReleaseStep.class,
                "openIndexPass", Processor.class, "consistencyCheck", ConsistencyCheck.class,
                "consistencySweep", ConsistencySweep.class, "cleanupStep", CleanupStep.class);
    }

    @Override
    public void bind(QueueContext ctx) {
        AdminActions admin = new AdminActions(ctx.store(), Clock.systemUTC());
        ctx.bind("adminActions", admin);
        ctx.bind("batchHoldRelease", new BatchHoldReleaseStep(admin.batches().releases()));
        // search finds open work by its ARK, local id or title in one request (issue 45): the index beside
        // history, filled by the cleanup leader's pass (route open-index), ARKs as our workers mint them
        OpenIndexPass openIndex = ctx.handOver() == null ? null
                : new OpenIndexPass(ctx.store(), ctx.handOver().history().open());
        if (openIndex != null) {
            ctx.store().addListener(openIndex);
        }
        ctx.bind("openIndexPass", (Processor) exchange -> {
            if (openIndex != null) {
                openIndex.run();
            }
        });
        ConsistencyCheck check = new ConsistencyCheck(ctx.store());
        ctx.bind("consistencyCheck", check);
        ctx.bind("consistencySweep", new ConsistencySweep(check,
                ctx.intProperty("ingest.fsck.batches-per-pass", 200)));
        ctx.bind("cleanupStep", new CleanupStep(admin, ctx.store(),
                ctx.durationProperty("ingest.cleanup.retention", Duration.ofDays(7)),
                ctx.durationProperty("ingest.cleanup.failed-retention", Duration.ofDays(30)),
                ctx.longProperty("ingest.history.keep-jobs", 10_000), Clock.systemUTC())
                .withHistory(ctx.handOver() == null ? null : ctx.handOver().history(),
                        ctx.durationProperty("ingest.history.retention", null)));
    }
}
