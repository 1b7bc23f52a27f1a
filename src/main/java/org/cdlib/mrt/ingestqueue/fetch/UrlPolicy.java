package org.cdlib.mrt.ingestqueue.fetch;

import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import org.cdlib.mrt.ingestqueue.text.Urls;

/**
 * Which URLs the queue fetches: {@code http} and {@code https}; {@code file:} only inside
 * {@code <ingest.home>/uploads/} (where the submit form stores uploads) unless the operator
 * allows every file URL. A URL naming a user or password ({@code https://user:password@host/})
 * is refused: the queue keeps no credentials, and would otherwise write them wherever it names
 * the URL. Anything else is refused with a message naming the URL, its user information hidden.
 */
public final class UrlPolicy {
    private final Path uploads;
    private final boolean allowFileUrls;
    private final AddressPolicy addresses;

    /** With the default address policy (no private, loopback, link-local... address). */
    public UrlPolicy(Path ingestHome, boolean allowFileUrls) {
        this(ingestHome, allowFileUrls, AddressPolicy.defaults());
    }

    public UrlPolicy(Path ingestHome, boolean allowFileUrls, AddressPolicy addresses) {
        this.uploads = ingestHome.toAbsolutePath().normalize().resolve("uploads");
        this.allowFileUrls = allowFileUrls;
        this.addresses = addresses;
    }

    public AddressPolicy addresses() {
        return addresses;
    }

    public URI check(String given) throws FetchException {
        if (given == null || given.isBlank()) {
            throw new FetchException("no URL given");
        }
        String url = Urls.redacted(given); // what messages name
        URI uri;
        try {
            // checkm cells decode %20 and %7c, so a manifest's URL may come back with blanks and bars
            uri = new URI(given.strip().replace(" ", "%20").replace("|", "%7C"));
        } catch (URISyntaxException e) {
            throw new FetchException(url + ": not a valid URL (" + Urls.redactedIn(e.getReason()) + ")");
        }
        if (uri.getRawUserInfo() != null || Urls.hasUserInfo(given.strip())) {
            throw new FetchException(
                    url + ": the URL names a user or password before its host; credentials are not accepted "
                            + "in URLs (the queue would keep them and name them in its logs and reports)");
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        switch (scheme) {
            case "http", "https" -> {
                if (uri.getHost() == null) {
                    throw new FetchException(url + ": URL has no host");
                }
                // an address literal is refused at once; a name when the connection is made
                addresses.checkLiteral(
                        url, uri.getHost(), uri.getPort() >= 0 ? uri.getPort() : scheme.equals("https") ? 443 : 80);
                return uri;
            }
            case "file" -> {
                checkFile(url, uri);
                return uri;
            }
            default -> throw new FetchException(url + ": URL scheme '" + scheme + "' is not fetched "
                    + "(only http, https, and file: under " + uploads + ")");
        }
    }

    private void checkFile(String url, URI uri) throws FetchException {
        Path path;
        try {
            path = Path.of(uri).toAbsolutePath().normalize();
        } catch (IllegalArgumentException e) {
            throw new FetchException(url + ": not a usable file URL (" + e.getMessage() + ")");
        }
        if (allowFileUrls) {
            return;
        }
        if (!path.startsWith(uploads) || path.equals(uploads)) {
            throw new FetchException(url + ": file URLs are only fetched from " + uploads
                    + " (set ingest.download.allow-file-urls=true to allow others)");
        }
        try {
            // a symbolic link inside uploads/ must not lead outside it
            if (Files.exists(path) && !path.toRealPath().startsWith(uploads.toRealPath())) {
                throw new FetchException(url + ": leads outside " + uploads + " through a symbolic link");
            }
        } catch (IOException e) {
            throw new FetchException(url + ": cannot check the file (" + e.getMessage() + ")");
        }
    }
}
