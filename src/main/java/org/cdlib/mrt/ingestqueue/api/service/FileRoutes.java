package org.cdlib.mrt.ingestqueue.api.service;

import static io.vertx.core.http.HttpMethod.GET;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.file.OpenOptions;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.RoutingContext;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import org.cdlib.mrt.ingestqueue.api.http.Access;
import org.cdlib.mrt.ingestqueue.api.http.ApiError;
import org.cdlib.mrt.ingestqueue.api.http.InputChecks;
import org.cdlib.mrt.ingestqueue.api.http.Routes;
import org.cdlib.mrt.ingestqueue.fetch.FetchException;
import org.cdlib.mrt.ingestqueue.fetch.SafeName;
import org.cdlib.mrt.ingestqueue.objects.FileUrlSigner;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A job's working files, which Merritt storage fetches (by the signed URL of the storage
 * manifest, or as a storage user): only under a job's {@code producer/} or {@code system/}, and,
 * for a URL that names a lease, only while that lease's session holds the job's lock.
 */
public final class FileRoutes {
    private static final Logger LOG = LoggerFactory.getLogger(FileRoutes.class);
    static final long ASKED_AGAIN_FROM = 1 << 20;
    private final QueueStore store;

    public FileRoutes(QueueStore store) {
        this.store = store;
    }

    public void register(Routes api) {
        api.add(GET, "/files/:bid/:jid/*", Access.STORAGE,
                "A job's working file (storage fetches these: a signed URL, or a storage user)", this::file);
    }

    private void file(RoutingContext rc) {
        String bid = rc.pathParam("bid");
        String jid = rc.pathParam("jid");
        String rest = rc.pathParam("*");
        if (!bid.matches("bid\\d{10}") || !jid.matches("jid\\d{10}") || rest == null
                || !(rest.startsWith("producer/") || rest.startsWith("system/"))) {
            throw new ApiError(404, "no such file: files are /files/<bid>/<jid>/producer/... or /system/...");
        }
        Path file;
        try {
            file = SafeName.resolve(store.ingestHome().resolve(bid).resolve(jid), InputChecks.filePath(rc));
        } catch (FetchException e) {
            throw new ApiError(400, e.getMessage());
        }
        if (!Files.isRegularFile(file)) {
            throw new ApiError(404, "no file " + rest + " in the working directory of " + jid);
        }
        String lease = rc.queryParams().get("lease");
        if (lease != null) {
            long signed = FileUrlSigner.lease(lease);
            long holder = store.jobs().lockSession(jid);
            if (holder != signed) {
                throw new ApiError(409, refused(jid, bid, rest, lease, holder));
            }
            long size = sizeOf(file, rest, jid);
            if (size >= ASKED_AGAIN_FROM) {
                sendAskingAgain(rc, file, size, jid, bid, rest, lease, signed);
                return;
            }
            // a smaller file leaves in one go: the window of its transfer is no longer than storage's own before its
            // commit
        }
        rc.response().putHeader("Content-Type", "application/octet-stream").sendFile(file.toString());
    }

    /**
     * A file of {@link #ASKED_AGAIN_FROM} bytes or more under a lease: all of it but its last byte,
     * then the lease asked again, then the last byte. A transfer during which the lease lost the job
     * (a sender paused past its session while storage fetched a large file) ends short of its
     * {@code Content-Length}, so storage's fetch fails and makes no version, where checking at the
     * start only would have let the whole file through to a late add. A smaller file is checked at
     * the start only: a second synced read per file slowed every fetch (a round trip to the leader
     * each) for a window no longer than storage's own.
     */
    private void sendAskingAgain(RoutingContext rc, Path file, long size, String jid, String bid, String rest,
            String lease,
            long signed) {
        HttpServerResponse res = rc.response().putHeader("Content-Type", "application/octet-stream")
                .putHeader("Content-Length", String.valueOf(size));
        Vertx vertx = rc.vertx();
        vertx.fileSystem().open(file.toString(), new OpenOptions().setRead(true))
                .compose(f -> f.setReadLength(size - 1).pipe().endOnComplete(false).to(res).eventually(v -> f.close()))
                .compose(v -> vertx.executeBlocking(() -> held(jid, bid, rest, lease, signed) ? lastByte(file, size)
                : null, false))
                .onComplete(last -> {
                    if (last.succeeded() && last.result() != null) {
                        res.end(last.result());
                    } else {
                        res.reset(); // the body ends short: the fetch fails
                    }
                });
    }

    private static long sizeOf(Path file, String rest, String jid) {
        try {
            return Files.size(file);
        } catch (IOException e) {
            throw new ApiError(404, "no file " + rest + " in the working directory of " + jid);
        }
    }

    /** Whether the lease still holds the job's lock; a WARN line when it does not. */
    private boolean held(String jid, String bid, String rest, String lease, long signed) {
        long holder = store.jobs().lockSession(jid);
        if (holder != signed) {
            refused(jid, bid, rest, lease, holder);
            return false;
        }
        return true;
    }

    /**
     * A storage add from a host that lost the job (paused past its session, say) reaches storage
     * late: refused here, it stores nothing, and the job's current holder stores the object once.
     */
    private static String refused(String jid, String bid, String rest, String lease, long holder) {
        String who = holder == 0 ? "nobody holds its lock" : "session " + Long.toHexString(holder) + " does";
        LOG.warn("job {} batch {}: storage fetched {} under lease {}, which no longer holds the job ({}): refused", jid,
                bid, rest, lease, who);
        return "job " + jid + ": this URL was signed under lease " + lease + ", which no longer holds the job (" + who
                + "): a storage add sent by a host that lost the job stores nothing; the job's holder sends its own";
    }

    private static Buffer lastByte(Path file, long size) throws IOException {
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "r")) {
            f.seek(size - 1);
            return Buffer.buffer(new byte[] {(byte) f.read()});
        }
    }
}
