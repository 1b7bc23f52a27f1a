package org.cdlib.mrt.ingestqueue.figures;

import java.time.Clock;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.camel.support.service.ServiceSupport;
import org.cdlib.mrt.ingestqueue.module.QueueContext;
import org.cdlib.mrt.ingestqueue.module.QueueModule;

/**
 * Every host measures its steps for the estimates ({@link StepTimes}), whether or not it serves
 * the API: the recorder is bound before the routes start (their consumers find it by type) and
 * writes this host's figures every {@link StepTimes#FLUSH_MS}.
 */
public final class FiguresModule implements QueueModule {

    @Override
    public Map<String, Class<?>> beans() {
        return Map.of("stepTimes", StepTimes.class);
    }

    @Override
    public void bind(QueueContext ctx) throws Exception {
        StepTimes times = new StepTimes(ctx.store(), Clock.systemUTC());
        ctx.bind("stepTimes", times);
        ctx.camel().addService(new ServiceSupport() {
            private ScheduledExecutorService flusher;

            @Override
            protected void doStart() {
                flusher = Executors.newSingleThreadScheduledExecutor(r -> {
                    Thread t = new Thread(r, "step-times");
                    t.setDaemon(true);
                    return t;
                });
                flusher.scheduleWithFixedDelay(times::flush, StepTimes.FLUSH_MS, StepTimes.FLUSH_MS,
                        TimeUnit.MILLISECONDS);
            }

            @Override
            protected void doStop() {
                if (flusher != null) {
                    flusher.shutdownNow();
                }
                times.flush();
            }
        });
    }
}
