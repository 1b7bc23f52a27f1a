package org.cdlib.mrt.ingestqueue.runtime;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.TreeSet;
import org.cdlib.mrt.ingestqueue.camel.JobFailure;
import org.cdlib.mrt.ingestqueue.config.Configuration;
import org.cdlib.mrt.ingestqueue.config.ConfigurationCheck;
import org.cdlib.mrt.ingestqueue.config.StartupException;
import org.cdlib.mrt.ingestqueue.history.HandOver;
import org.cdlib.mrt.ingestqueue.history.HistoryStore;
import org.cdlib.mrt.ingestqueue.module.QueueModule;
import org.cdlib.mrt.ingestqueue.profile.ProfileDirectory;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;

/**
 * What is checked before anything is created (no ZooKeeper data, no OCFL root, no Camel), each refusal one
 * line: every value of its key's kind (key, value, form); a set outside service usable, never a silent local
 * stand-in (key, host, why); the route files and profiles (file, line, route); then the warnings for keys
 * nobody reads.
 */
final class StartChecks {
    /** The beans the service binds itself, beside the modules' ({@code QueueModule#beans}): routes may name them. */
    static final Map<String, Class<?>> SERVICE_BEANS = serviceBeans();

    private StartChecks() {
    }

    /** Throws {@link StartupException} naming every problem found; {@code bound}: beans a caller binds over. */
    static void run(Configuration configuration, String routesInclude, Map<String, Object> bound) throws Exception {
        ConfigurationCheck.values(configuration);
        OutsideServiceCheck.check(configuration);
        ConfigurationCheck.warnUnknown(configuration, routesAndProfiles(configuration, routesInclude, bound));
    }

    /** The beans a route may name, as the modules declare them and the service and a caller bind them. */
    static KnownBeans knownBeans(Map<String, Object> bound) {
        return KnownBeans.of(ServiceLoader.load(QueueModule.class), SERVICE_BEANS, bound);
    }

    /**
     * The route files and the profiles: each problem one line naming the file, the line, the route and the bad
     * name with what is accepted; any stops the start. Before camel-main starts: a start refused here spends no
     * time on Camel's own. Answers the keys the files' placeholders read.
     */
    private static Set<String> routesAndProfiles(Configuration configuration, String routesInclude,
            Map<String, Object> bound) throws Exception {
        Set<String> routeKeys = new TreeSet<>();
        List<String> problems = new ArrayList<>(RouteCheck.problems(routesInclude,
                configuration.setting("camel.main.routes-exclude-pattern").map(Configuration.Setting::value)
                        .orElse(null),
                knownBeans(bound), routeKeys));
        Path profileDir = Path.of(configuration.setting("ingest.profiles").map(Configuration.Setting::value)
                .orElse("./profiles").strip());
        problems.addAll(ProfileDirectory.problems(profileDir).stream().map(p -> p + " (ingest.profiles)").toList());
        if (!problems.isEmpty()) {
            throw new StartupException(problems.size() == 1 ? problems.get(0)
                    : problems.size() + " problems in the route files and profiles:\n  "
                            + String.join("\n  ", problems));
        }
        return routeKeys;
    }

    private static Map<String, Class<?>> serviceBeans() {
        Map<String, Class<?>> own = new HashMap<>(Map.of("history", HistoryStore.class, "handOver", HandOver.class,
                "queueStore", QueueStore.class, "profiles", ProfileDirectory.class, "expectedFailure", JobFailure.class,
                "unexpectedFailure", JobFailure.class));
        ElectedRoutes.POLICIES.keySet().forEach(policy -> own.put(policy, ElectedRoutes.class));
        return Map.copyOf(own);
    }
}
