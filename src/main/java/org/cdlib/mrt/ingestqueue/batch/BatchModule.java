package org.cdlib.mrt.ingestqueue.batch;

import org.cdlib.mrt.ingestqueue.QueueContext;
import org.cdlib.mrt.ingestqueue.QueueModule;
import org.cdlib.mrt.ingestqueue.fetch.FetchSettings;
import org.cdlib.mrt.ingestqueue.fetch.Fetcher;

/** Binds {@code batchPendingStep} (submission → jobs) and {@code pendingStep} (job holds). */
public final class BatchModule implements QueueModule {

    @Override
    public void bind(QueueContext ctx) {
        ctx.bind("batchPendingStep", new BatchPendingStep(ctx.store(), ctx.profiles(),
                new Fetcher(FetchSettings.of(ctx), ctx.ingestHome())));
        ctx.bind("pendingStep", new PendingStep(ctx.store()));
    }
}
