package org.cdlib.mrt.ingestqueue.batch;

import java.util.Map;
import org.apache.camel.Processor;
import org.cdlib.mrt.ingestqueue.fetch.FetchSettings;
import org.cdlib.mrt.ingestqueue.fetch.Fetcher;
import org.cdlib.mrt.ingestqueue.module.QueueContext;
import org.cdlib.mrt.ingestqueue.module.QueueModule;
import org.cdlib.mrt.ingestqueue.steps.FetchModule;

/**
 * Binds {@code batchPendingStep} (submission → jobs, a window at a time: {@code ingest.batch.window}
 * open jobs per batch, {@code ingest.queue.max-open-jobs} in all; the depositor's server read on
 * {@code ingest.batch.read-threads} threads of its own, at most {@code ingest.batch.reads-per-submitter}
 * reads per depositor at once) and {@code pendingStep} (job holds).
 */
public final class BatchModule implements QueueModule {

    @Override
    public Map<String, Class<?>> beans() {
        return Map.of("batchPendingStep", BatchPendingStep.class, "pendingStep", PendingStep.class,
                "merrittIntake", Processor.class);
    }

    @Override
    public void bind(QueueContext ctx) {
        ctx.bind("batchPendingStep", new BatchPendingStep(ctx.store(), ctx.profiles(),
                new Fetcher(FetchModule.settings(ctx), ctx.ingestHome()),
                ctx.intProperty("ingest.batch.window", 5_000),
                ctx.intProperty("ingest.queue.max-open-jobs", 10_000),
                ctx.intProperty("ingest.batch.refill-delay", 1_000),
                ctx.longProperty("ingest.batch.max-manifest-bytes", 256L << 20),
                new OutsideReads(ctx.intProperty("ingest.batch.read-threads", SubmissionReads.READ_THREADS),
                        ctx.intProperty("ingest.batch.reads-per-submitter", SubmissionReads.READS_PER_SUBMITTER),
                        SubmissionReads.READ_WAIT_MS)));
        ctx.bind("pendingStep", new PendingStep(ctx.store()));
        // batches Merritt's ingest front end creates through mrt-zk, taken into the pending folder (each host's timer)
        ctx.bind("merrittIntake", (Processor) exchange -> ctx.store().adoptMerrittBatches());
    }
}
