package org.cdlib.mrt.ingestqueue.runtime;

import java.util.HashMap;
import java.util.Map;
import org.apache.camel.Exchange;
import org.apache.camel.Processor;
import org.cdlib.mrt.ingestqueue.camel.JobExchange;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A service JVM (started by {@link StopIntakeTest}) whose job steps each take
 * {@code slow.step.ms} and log when they start and end, with the time in ms, so a test can tell
 * what ran after a SIGTERM. Configured by {@code -Dkey=value} (the ingest., zookeeper. and camel.
 * keys are the service's overrides); stopped like the service, by a signal.
 */
public final class SlowStepsMain {
    private static final Logger LOG = LoggerFactory.getLogger(SlowStepsMain.class);

    private SlowStepsMain() {
    }

    public static void main(String[] args) throws Exception {
        long ms = Long.getLong("slow.step.ms", 3000);
        Map<String, String> config = new HashMap<>();
        System.getProperties().forEach((k, v) -> {
            String key = k.toString();
            if (key.startsWith("ingest.") || key.startsWith("zookeeper.") || key.startsWith("camel.")) {
                config.put(key, v.toString());
            }
        });
        Map<String, Object> beans = new ServiceTestSupport().beans();
        for (String step : ServiceTestSupport.JOB_STEPS) {
            if (!step.equals("completeStep")) { // notify's route calls it after notifyStep: one slow step per state
                beans.put(step, new SlowStep(step, ms));
            }
        }
        new IngestService(config, beans).run();
    }

    /** Sleeps its time (a stop past its timeout interrupts it), logging start and end. */
    record SlowStep(String name, long ms) implements Processor {
        @Override
        public void process(Exchange exchange) throws InterruptedException {
            String jid = JobExchange.job(exchange).id();
            LOG.info("slow step {} {} started {}", name, jid, System.currentTimeMillis());
            try {
                Thread.sleep(ms);
            } catch (InterruptedException e) {
                LOG.info("slow step {} {} interrupted {}", name, jid, System.currentTimeMillis());
                throw e;
            }
            LOG.info("slow step {} {} ended {}", name, jid, System.currentTimeMillis());
        }
    }
}
