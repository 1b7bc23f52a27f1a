package org.cdlib.mrt.ingestqueue.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.camel.spi.Registry;
import org.cdlib.mrt.ingestqueue.module.QueueModule;
import org.cdlib.mrt.ingestqueue.testing.QueueFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The beans the route files are checked against before the start (the modules' {@link QueueModule#beans()}
 * and the service's own) are the beans a started service bound: same names, same classes.
 */
class DeclaredBeansTest {
    @RegisterExtension
    static final QueueFixture ZK = new QueueFixture();

    @Test
    void whatTheModulesDeclareIsWhatAStartedServiceBound() throws Exception {
        Map<String, Class<?>> declared = new TreeMap<>(StartChecks.SERVICE_BEANS);
        ServiceLoader.load(QueueModule.class).forEach(m -> declared.putAll(m.beans()));
        Map<String, String> config = ServiceTestSupport.localBackEnds(ZK.connectString(), ZK.dir());
        config.put("camel.main.routes-include-pattern", "file:routes/*.yaml");
        try (IngestService service = new IngestService(config).start()) {
            Registry registry = service.camel().getRegistry();
            declared.forEach((name, type) -> {
                Object bean = registry.lookupByName(name);
                assertNotNull(bean, name + " is declared but was not bound");
                // a lambda is declared by its interface, a bean whose class the configuration chooses by its interface
                assertTrue(type.isInstance(bean), name + " is a " + bean.getClass() + ", declared " + type);
                if (!type.isInterface()) {
                    assertEquals(type, bean.getClass(), name);
                }
            });
            Set<String> undeclared = new TreeSet<>(registry.findByTypeWithName(Object.class).keySet());
            undeclared.removeAll(declared.keySet());
            // Camel's own (its variable repositories)
            undeclared.removeIf(n -> registry.lookupByName(n).getClass().getName().startsWith("org.apache.camel."));
            assertEquals(Set.of(), undeclared, "bound but not declared");
        }
    }
}
