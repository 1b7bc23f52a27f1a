package org.cdlib.mrt.ingestqueue.runtime;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiConsumer;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.Route;
import org.apache.camel.StartupListener;
import org.apache.camel.spi.RoutePolicy;
import org.apache.camel.support.service.ServiceSupport;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.leader.LeaderSelector;
import org.apache.curator.framework.recipes.leader.LeaderSelectorListenerAdapter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Routes that run on one host at a time (cleanup, the reporting sweep): a route names its policy
 * ({@code routePolicy: cleanupLeader} in routes/*.yaml); the policy starts the route on the host that
 * leads the election of its namespace and stops it as soon as that host may have lost the lead (its
 * connection to ZooKeeper is suspended or its session lost), before another host can lead.
 *
 * <p>The election is Curator's {@link LeaderSelector} under /locks/cluster/&lt;namespace&gt;, the
 * recipe and the nodes of camel-zookeeper's cluster service, which the routes used before through
 * camel-master's {@code master:} endpoint; so hosts of both builds share one election during a
 * rolling upgrade. Not that pair any more: in Camel 4.18 the cluster view announces the loss of
 * the lead while Curator still reports it held, so a host whose session expired kept its timers
 * running beside the new leader (SingletonTimersTest reproduces it), and the {@code master:}
 * consumer re-runs its start task for ~50 s after taking the lead (CAMEL-24583/24584).
 */
public final class ElectedRoutes implements RoutePolicy {
    private static final Logger LOG = LoggerFactory.getLogger(ElectedRoutes.class);
    /** Policy bean (what a route's {@code routePolicy} names) → election namespace. */
    public static final Map<String, String> POLICIES = Map.of(
            "cleanupLeader", "ingest-cleanup",
            "reportingSweepLeader", "ingest-reporting-sweep");
    static final String BASE = "/locks/cluster/";
    static final Duration RETRY_AFTER = Duration.ofSeconds(5);

    private final String namespace;
    private final LeaderSelector selector;
    private final Set<String> routeIds = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean electing = new AtomicBoolean();
    private final BiConsumer<String, Boolean> running;
    private volatile CamelContext camel;
    /** Whether this host leads now: false from the moment the lead may be lost, before its routes are stopped. */
    private volatile boolean leading;

    private ElectedRoutes(CuratorFramework client, String namespace, String memberId,
                          BiConsumer<String, Boolean> running) {
        this.namespace = namespace;
        this.running = running;
        this.selector = new LeaderSelector(client, BASE + namespace, new LeaderSelectorListenerAdapter() {
            @Override
            public void takeLeadership(CuratorFramework c) throws Exception {
                lead();
            }
        });
        selector.setId(memberId);
        selector.autoRequeue();
    }

    /**
     * Binds one policy per namespace of {@link #POLICIES}; {@code memberId} names this host in the
     * elections, {@code running} hears each route this host starts (true) or stops (false) running.
     */
    public static void install(CamelContext camel, CuratorFramework client, String memberId,
                               BiConsumer<String, Boolean> running) throws Exception {
        for (Map.Entry<String, String> p : POLICIES.entrySet()) {
            ElectedRoutes policy = new ElectedRoutes(client, p.getValue(), memberId, running);
            camel.getRegistry().bind(p.getKey(), policy);
            camel.addService(new ServiceSupport() { // not the policy itself: a route's stop would stop it
                @Override
                protected void doStop() {
                    policy.leave();
                }
            });
        }
    }

    @Override
    public void onInit(Route route) {
        route.setAutoStartup(false); // the lead starts it
        routeIds.add(route.getId());
        if (camel != null) {
            return; // one election for all the routes that name this policy
        }
        camel = route.getCamelContext();
        try {
            camel.addStartupListener(new StartupListener() {
                @Override
                public void onCamelContextStarted(CamelContext context, boolean alreadyStarted) {
                }

                @Override
                public void onCamelContextFullyStarted(CamelContext context, boolean alreadyStarted) {
                    if (electing.compareAndSet(false, true)) { // routes can be started from here on
                        selector.start();
                    }
                }
            });
        } catch (Exception e) {
            throw new IllegalStateException("route " + route.getId() + ": cannot join the election of " + namespace, e);
        }
    }

    /** Runs the routes while this host leads; the selector interrupts it when the connection is suspended or lost. */
    private void lead() {
        List<String> ids = List.copyOf(routeIds);
        LOG.info("leading {}: starting {}", namespace, ids);
        try {
            for (String id : ids) {
                camel.getRouteController().startRoute(id);
                running.accept(id, true);
            }
            leading = true;
            new CountDownLatch(1).await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            LOG.warn("leading {}: cannot start {}: {}; giving the lead up in {} s", namespace, ids, e.getMessage(),
                    RETRY_AFTER.toSeconds());
            try {
                // not at once: alone in the election, this host would take it straight back
                Thread.sleep(RETRY_AFTER.toMillis());
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
            }
        } finally {
            stopRoutes(ids);
        }
    }

    private void stopRoutes(List<String> ids) {
        leading = false; // work in hand stops at its next slice, not when the route's stop times out
        boolean interrupted = Thread.interrupted(); // a route stop waits; give the lead up cleanly first
        ids.forEach(id -> running.accept(id, false));
        try {
            if (camel.isStopping() || camel.isStopped()) {
                return; // the context stops the routes itself
            }
            for (String id : ids) {
                camel.getRouteController().stopRoute(id, 30, TimeUnit.SECONDS);
            }
            LOG.info("no longer leading {}: stopped {}", namespace, ids);
        } catch (Exception e) {
            LOG.warn("no longer leading {}: stopping {}: {}", namespace, ids, e.getMessage());
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Whether the route of {@code exchange} may go on with its next slice of work: false once its
     * host may have lost the lead of the route's election (a route under no election: always true).
     * A singleton's work checks it between slices, so it stops as soon as the lead is lost, not when
     * the route's stop gives up waiting for it.
     */
    public static boolean leads(Exchange exchange) {
        Route route = exchange.getContext().getRoute(exchange.getFromRouteId());
        if (route == null) {
            return true;
        }
        for (RoutePolicy p : route.getRoutePolicyList()) {
            if (p instanceof ElectedRoutes e && !e.leading) {
                return false;
            }
        }
        return true;
    }

    private void leave() {
        if (electing.compareAndSet(true, false)) {
            selector.close();
        }
    }

    @Override
    public void onRemove(Route route) {
        routeIds.remove(route.getId());
    }

    @Override
    public void onStart(Route route) {
    }

    @Override
    public void onStop(Route route) {
    }

    @Override
    public void onSuspend(Route route) {
    }

    @Override
    public void onResume(Route route) {
    }

    @Override
    public void onExchangeBegin(Route route, Exchange exchange) {
    }

    @Override
    public void onExchangeDone(Route route, Exchange exchange) {
    }
}
