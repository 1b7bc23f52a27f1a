package org.cdlib.mrt.ingestqueue.api;

import io.vertx.core.file.AsyncFile;
import io.vertx.core.file.OpenOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpVersion;
import io.vertx.ext.web.RoutingContext;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;
import org.cdlib.mrt.ingestqueue.api.http.PostedForm;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A multipart upload's body: streamed to a file in the temporary folder as it arrives, within the limit (413 as
 * soon as it grows past it, or before it is read when its declared length does), then decoded by
 * {@link FormDecoder} on a worker; the form waits under {@link PostedForm#KEY}. Its files are removed when the
 * request ends, unless a handler moved them away first. Netty's multipart decoder is not used: it can add the CR
 * before a boundary to a file (netty#12729). A slow client holds a file handle, never a worker.
 */
final class MultipartBodies {
    private static final Logger LOG = LoggerFactory.getLogger(MultipartBodies.class);

    private final Path uploadsTmp;
    private final FormDecoder decoder;

    MultipartBodies(Path uploadsTmp) {
        this.uploadsTmp = uploadsTmp;
        this.decoder = new FormDecoder(uploadsTmp);
    }

    static boolean multipart(RoutingContext rc) {
        String type = rc.request().getHeader("Content-Type");
        return type != null && type.regionMatches(true, 0, "multipart/", 0, 10);
    }

    /** Reads the body within {@code limit} bytes ({@code Long.MAX_VALUE}: no limit), then goes on to the route. */
    void read(RoutingContext rc, long limit) {
        HttpServerRequest request = rc.request();
        String length = request.getHeader("Content-Length");
        if (length != null && length.matches("\\d{1,18}") && Long.parseLong(length) > limit) {
            rc.fail(413);
            return;
        }
        if ("100-continue".equalsIgnoreCase(request.getHeader("Expect")) && request.version() == HttpVersion.HTTP_1_1) {
            rc.response().writeContinue();
        }
        request.pause(); // until the file is open: what arrives meanwhile waits, it is not lost
        Path body = uploadsTmp.resolve(UUID.randomUUID() + ".body");
        rc.addEndHandler(done -> {
            delete(body);
            PostedForm form = rc.get(PostedForm.KEY);
            if (form != null) {
                form.deleteFiles();
            }
        });
        rc.vertx().fileSystem().open(body.toString(), new OpenOptions().setWrite(true).setCreateNew(true))
                .onFailure(rc::fail)
                .onSuccess(file -> new Reading(rc, file, body, limit).start());
    }

    /** One body being written to its file. */
    private final class Reading {
        private final RoutingContext rc;
        private final AsyncFile file;
        private final Path body;
        private final long limit;
        private long read;
        /** A refusal, a failure or the body's end was met: what the request sends or says after it is dropped. */
        private boolean settled;

        Reading(RoutingContext rc, AsyncFile file, Path body, long limit) {
            this.rc = rc;
            this.file = file;
            this.body = body;
            this.limit = limit;
        }

        void start() {
            HttpServerRequest request = rc.request();
            if (request.isEnded()) {
                ended();
                return;
            }
            request.handler(chunk -> {
                if (settled) {
                    return;
                }
                read += chunk.length();
                if (read > limit) {
                    stop();
                    rc.fail(413);
                    return;
                }
                file.write(chunk);
                if (file.writeQueueFull()) {
                    request.pause();
                    file.drainHandler(v -> request.resume());
                }
            });
            request.exceptionHandler(e -> {
                if (!settled) {
                    stop();
                    rc.fail(400, new FormDecoder.BadForm("the upload was cut off: " + e.getMessage()));
                }
            });
            request.endHandler(v -> {
                if (!settled) {
                    ended();
                }
            });
            file.exceptionHandler(e -> {
                if (!settled) {
                    stop();
                    LOG.warn("cannot store an upload's body as {}: {}", body, e.toString());
                    rc.fail(e);
                }
            });
            request.resume();
        }

        /** What is left of the body is read and dropped, as Vert.x's body handler does past its limit. */
        private void stop() {
            settled = true;
            file.close();
            rc.request().resume();
        }

        private void ended() {
            settled = true;
            String type = rc.request().getHeader("Content-Type");
            file.close()
                    .compose(v -> rc.vertx().executeBlocking(() -> {
                        try {
                            return decoder.decode(body, type);
                        } finally {
                            delete(body);
                        }
                    }, false))
                    .onComplete(decoded -> {
                        if (decoded.succeeded()) {
                            rc.put(PostedForm.KEY, decoded.result());
                            if (rc.response().ended() || rc.response().closed()) {
                                decoded.result().deleteFiles(); // the end handler has run already
                            } else {
                                rc.next();
                            }
                        } else if (decoded.cause() instanceof FormDecoder.BadForm bad) {
                            rc.fail(400, bad);
                        } else {
                            rc.fail(decoded.cause());
                        }
                    });
        }
    }

    private static void delete(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            LOG.warn("cannot remove the temporary upload body {}: {}", file, e.toString());
        }
    }
}
