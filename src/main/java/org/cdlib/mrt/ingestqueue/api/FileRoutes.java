package org.cdlib.mrt.ingestqueue.api;

import static io.vertx.core.http.HttpMethod.GET;

import io.vertx.ext.web.RoutingContext;
import java.nio.file.Files;
import java.nio.file.Path;
import org.cdlib.mrt.ingestqueue.api.HttpApi.Access;
import org.cdlib.mrt.ingestqueue.fetch.FetchException;
import org.cdlib.mrt.ingestqueue.fetch.SafeName;
import org.cdlib.mrt.ingestqueue.objects.FileUrlSigner;
import org.cdlib.mrt.ingestqueue.queue.QueueStore;

/**
 * A job's working files, which Merritt storage fetches (by the signed URL of the storage
 * manifest, or as a storage user): only under a job's {@code producer/} or {@code system/}, and,
 * for a URL that names a lease, only while that lease's session holds the job's lock.
 */
final class FileRoutes {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(FileRoutes.class);
    private final QueueStore store;

    FileRoutes(QueueStore store) {
        this.store = store;
    }

    void register(HttpApi api) {
        api.add(GET, "/files/:bid/:jid/*", Access.STORAGE, "A job's working file (storage fetches these: a signed URL, or a storage user)", this::file);
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
            file = SafeName.resolve(store.ingestHome().resolve(bid).resolve(jid), java.net.URLDecoder.decode(rest,
                    java.nio.charset.StandardCharsets.UTF_8));
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
                // a storage add from a host that lost the job (paused past its session, say) reaches storage late:
                // refused here, it stores nothing, and the job's current holder stores the object once
                String who = holder == 0 ? "nobody holds its lock" : "session " + Long.toHexString(holder) + " does";
                LOG.warn("job {} batch {}: storage fetched {} under lease {}, which no longer holds the job ({}): refused",
                        jid, bid, rest, lease, who);
                throw new ApiError(409, "job " + jid + ": this URL was signed under lease " + lease + ", which no longer holds the job ("
                        + who + "): a storage add sent by a host that lost the job stores nothing; the job's holder sends its own");
            }
        }
        rc.response().putHeader("Content-Type", "application/octet-stream").sendFile(file.toString());
    }
}
