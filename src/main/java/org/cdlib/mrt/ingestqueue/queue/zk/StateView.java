package org.cdlib.mrt.ingestqueue.queue.zk;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentSkipListSet;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.BackgroundCallback;
import org.apache.curator.framework.recipes.watch.PersistentWatcher;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.cdlib.mrt.ingestqueue.queue.model.QueueLimits;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The children of one folder (a job state or a batch state index), kept in memory from a
 * persistent recursive watch: each reference created or deleted arrives as its own event, so a
 * busy state is never re-listed on every change. The folder is listed once at start, after every
 * reconnection (events may have been missed), and when asked for as a safety net; the listing
 * runs as a background call, delivered on ZooKeeper's event thread in order with the watch's
 * events, so no event is lost between a listing and the ones after it. The folders watched are
 * kept small (open states only), so a listing stays far below a ZooKeeper packet.
 */
public final class StateView implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(StateView.class);
    private final CuratorFramework client;
    private final String path;
    private final PersistentWatcher watcher;
    private final ConcurrentSkipListSet<String> children = new ConcurrentSkipListSet<>();
    private volatile Runnable onChange = () -> { };
    private volatile boolean listed;
    private volatile String problem;

    public StateView(CuratorFramework client, String path) {
        this.client = client;
        this.path = path;
        this.watcher = new PersistentWatcher(client, path, true);
        watcher.getListenable().addListener(this::event);
        watcher.getResetListenable().addListener(this::relist);
    }

    /** Starts watching; {@code onChange} runs (on ZooKeeper's event thread: keep it short) after every change. */
    public StateView start(Runnable onChange) {
        this.onChange = onChange;
        watcher.start();
        return this;
    }

    /** The children in name order (for job references: run order). */
    public List<String> snapshot() {
        return new ArrayList<>(children);
    }

    public boolean isListed() {
        return listed;
    }

    /** Why the last listing failed, or null. */
    public String problem() {
        return problem;
    }

    private void event(WatchedEvent e) {
        String p = e.getPath();
        if (p == null || !p.startsWith(path + "/")) {
            return;
        }
        String name = p.substring(path.length() + 1);
        if (name.indexOf('/') >= 0) {
            return;
        }
        if (e.getType() == Watcher.Event.EventType.NodeCreated) {
            children.add(name);
        } else if (e.getType() == Watcher.Event.EventType.NodeDeleted) {
            children.remove(name);
        } else {
            return;
        }
        onChange.run();
    }

    /** Lists the folder again in the background (after a reconnection, or as the safety net). */
    public void relist() {
        BackgroundCallback done = (c, event) -> {
            if (event.getResultCode() == KeeperException.Code.OK.intValue()) {
                children.clear();
                children.addAll(event.getChildren());
                listed = true;
                problem = null;
            } else if (event.getResultCode() == KeeperException.Code.NONODE.intValue()) {
                children.clear();
                listed = true;
                problem = null;
            } else {
                problem = "cannot list " + path + ": " + KeeperException.Code.get(event.getResultCode());
                LOG.warn("{}", problem);
            }
            onChange.run();
        };
        // counted first: a folder grown past what one answer may carry is never asked for whole
        BackgroundCallback counted = (c, event) -> {
            int n = event.getStat() == null ? 0 : event.getStat().getNumChildren();
            if (n > QueueLimits.LISTED_CHILDREN) {
                problem = path + " holds " + n + " entries, more than the " + QueueLimits.LISTED_CHILDREN
                        + " listed at once";
                LOG.warn("{}", problem);
                onChange.run();
                return;
            }
            c.getChildren().inBackground(done).forPath(path);
        };
        try {
            client.checkExists().inBackground(counted).forPath(path);
        } catch (Exception e) {
            problem = "cannot list " + path + ": " + e.getMessage();
            LOG.warn("{}", problem);
        }
    }

    @Override
    public void close() {
        watcher.close();
    }
}
