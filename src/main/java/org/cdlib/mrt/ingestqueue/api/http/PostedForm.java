package org.cdlib.mrt.ingestqueue.api.http;

import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.ext.web.FileUpload;
import io.vertx.ext.web.RoutingContext;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A posted form's fields and uploaded files: the multipart body as the queue's own decoder read it (not Netty's,
 * which can add a CR to a value, netty#12729), else the form Vert.x decoded (an urlencoded body, which has no
 * such CR).
 */
public record PostedForm(MultiMap fields, List<FileUpload> files) {
    /** Where the decoded multipart form waits in the routing context for the route's handler. */
    public static final String KEY = "postedForm";
    private static final Logger LOG = LoggerFactory.getLogger(PostedForm.class);

    public static PostedForm of(RoutingContext rc) {
        PostedForm form = rc.get(KEY);
        return form != null ? form : new PostedForm(rc.request().formAttributes(), rc.fileUploads());
    }

    /** Removes the uploads still in the temporary folder (a kept one was moved away already). */
    public void deleteFiles() {
        for (FileUpload f : files) {
            try {
                Files.deleteIfExists(Path.of(f.uploadedFileName()));
            } catch (IOException e) {
                // the disk's trouble, not the request's: the operator may remove it
                LOG.warn("cannot remove the temporary upload {}: {}", f.uploadedFileName(), e.toString());
            }
        }
    }

    /** One uploaded file, stored whole in the temporary folder as {@code uploadedFileName}. */
    public record File(String name, String uploadedFileName, String fileName, long size, String contentType)
            implements FileUpload {
        @Override
        public String contentTransferEncoding() {
            return "binary";
        }

        @Override
        public String charSet() {
            return null;
        }

        @Override
        public boolean cancel() {
            return false;
        }

        @Override
        public Future<Void> delete() {
            try {
                Files.deleteIfExists(Path.of(uploadedFileName));
                return Future.succeededFuture();
            } catch (IOException e) {
                return Future.failedFuture(e);
            }
        }
    }
}
