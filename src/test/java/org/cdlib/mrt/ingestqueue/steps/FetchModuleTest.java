package org.cdlib.mrt.ingestqueue.steps;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Path;
import java.util.Properties;
import java.util.ServiceLoader;
import org.apache.camel.CamelContext;
import org.apache.camel.impl.DefaultCamelContext;
import org.cdlib.mrt.ingestqueue.fetch.FetchSettings;
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
    void storagesCopyCountsWhereLocalStorageSharesTheDisk() throws Exception {
        try (CamelContext camel = new DefaultCamelContext()) {
            QueueStore store = ZK.store(home);
            Properties p = new Properties();
            p.setProperty("ingest.storage.local.root", home.resolve("storage").toString());
            camel.getPropertiesComponent().setInitialProperties(p);
            assertEquals(2, FetchModule.copies(new QueueContext(camel, store, null)), "local storage, same disk");
            p.setProperty("ingest.storage", "http");
            camel.getPropertiesComponent().setInitialProperties(p);
            assertEquals(1, FetchModule.copies(new QueueContext(camel, store, null)), "storage elsewhere");
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

    @Test
    void theConnectionsFollowTheWorkersUnlessSetAndABadCountIsRefusedNamingItsKey() throws Exception {
        Properties p = new Properties();
        p.setProperty("ingest.concurrency.downloading", "16");
        p.setProperty("ingest.concurrency.estimating", "8");
        p.setProperty("ingest.download.parallelism", "4");
        FetchSettings.Connections c = settings(p).connections();
        assertEquals(64, c.downloadsPerHost(), "every file of downloading's 16 workers at once");
        assertEquals(48, c.probesPerHost(), "estimating's 8 workers' HEADs, and a manifest read per download");
        p.setProperty(FetchSettings.DOWNLOADS_PER_HOST, "12");
        p.setProperty(FetchSettings.PROBES_PER_HOST, "6");
        c = settings(p).connections();
        assertEquals(12, c.downloadsPerHost());
        assertEquals(6, c.probesPerHost());
        for (String bad : new String[] {"0", "many"}) {
            p.setProperty(FetchSettings.DOWNLOADS_PER_HOST, bad);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> settings(p));
            assertTrue(e.getMessage().startsWith("ingest.fetch.connections-per-host = '" + bad + "'")
                    && e.getMessage().contains("accepted: a whole number, 1 or more"), e.getMessage());
        }
    }

    FetchSettings settings(Properties p) throws Exception {
        try (CamelContext camel = new DefaultCamelContext()) {
            camel.getPropertiesComponent().setInitialProperties(p);
            return FetchModule.settings(new QueueContext(camel, ZK.store(home), null));
        }
    }
}
