package org.cdlib.mrt.ingestqueue.steps;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Path;
import java.util.Properties;
import java.util.ServiceLoader;
import org.apache.camel.CamelContext;
import org.apache.camel.impl.DefaultCamelContext;
import org.cdlib.mrt.ingestqueue.module.QueueContext;
import org.cdlib.mrt.ingestqueue.module.QueueModule;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.cdlib.mrt.ingestqueue.testing.QueueFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class FetchModuleTest {
    @RegisterExtension
    static final QueueFixture ZK = new QueueFixture();
    final Path home = ZK.dir();

    @Test
    void theModuleIsFoundAndBindsItsFourSteps() throws Exception {
        assertTrue(ServiceLoader.load(QueueModule.class).stream().anyMatch(p -> p.type() == FetchModule.class));
        try (CamelContext camel = new DefaultCamelContext()) {
            QueueStore store = ZK.store(home);
            Properties p = new Properties();
            p.setProperty("ingest.download.read-timeout", "PT30S");
            p.setProperty("ingest.download.parallelism", "2");
            camel.getPropertiesComponent().setInitialProperties(p);
            new FetchModule().bind(new QueueContext(camel, store, null));
            assertInstanceOf(EstimateStep.class, camel.getRegistry().lookupByName("estimateStep"));
            assertInstanceOf(ProvisionStep.class, camel.getRegistry().lookupByName("provisionStep"));
            assertInstanceOf(DownloadStep.class, camel.getRegistry().lookupByName("downloadStep"));
            assertInstanceOf(CompleteStep.class, camel.getRegistry().lookupByName("completeStep"));
        }
    }

    @Test
    void aBadValueIsRefusedNamingTheKey() throws Exception {
        try (CamelContext camel = new DefaultCamelContext()) {
            QueueStore store = ZK.store(home);
            Properties p = new Properties();
            p.setProperty("ingest.download.parallelism", "0");
            camel.getPropertiesComponent().setInitialProperties(p);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> new FetchModule().bind(new QueueContext(camel, store, null)));
            assertTrue(e.getMessage().contains("ingest.download.parallelism"), e.getMessage());
        }
    }
}
