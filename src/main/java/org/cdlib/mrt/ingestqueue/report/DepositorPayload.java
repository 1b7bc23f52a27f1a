package org.cdlib.mrt.ingestqueue.report;

import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystemNotFoundException;
import java.nio.file.Path;
import org.cdlib.mrt.ingestqueue.queue.model.Job;
import org.cdlib.mrt.ingestqueue.text.Urls;

/**
 * A payload named as its depositor gave it, for what they read (the report mail and its
 * attachments): their URL, or the name of the file they uploaded — never the server's copy
 * ({@code file:///…/uploads/<uuid>/<name>}), which tells them nothing and shows our disk; and
 * never a password a URL carries (a neighbour's job may hold one: it is shown as {@code ***}).
 *
 * @param url  the payload's URL as the queue keeps it
 * @param name what the depositor knows it by
 */
record DepositorPayload(String url, String name) {

    static DepositorPayload of(Job j) {
        return of(j.configuration().payloadUrl(), j.configuration().fileName());
    }

    /**
     * {@code fileName}: the name the depositor gave (form field {@code filename} or the upload's), when there is one.
     */
    static DepositorPayload of(String url, String fileName) {
        if (url == null || !url.regionMatches(true, 0, "file:", 0, 5)) {
            return new DepositorPayload(url, Urls.redacted(url));
        }
        if (fileName != null && !fileName.isBlank()) {
            return new DepositorPayload(url, fileName);
        }
        String path = url.replaceFirst("/+$", "");
        return new DepositorPayload(
                url, URLDecoder.decode(path.substring(path.lastIndexOf('/') + 1), StandardCharsets.UTF_8));
    }

    /**
     * {@code text} (an error message) with the server's path of the payload, as URL or as path, replaced by its name.
     */
    String inText(String text) {
        if (text == null || url == null || url.equals(name)) {
            return Urls.redactedIn(text);
        }
        String out = Urls.redactedIn(text.replace(url, name));
        try {
            out = out.replace(Path.of(URI.create(url)).toString(), name);
        } catch (IllegalArgumentException | FileSystemNotFoundException e) {
            // not a path this host can name: the URL form was all there was to replace
        }
        return out;
    }
}
