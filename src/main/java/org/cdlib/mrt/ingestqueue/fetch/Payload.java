package org.cdlib.mrt.ingestqueue.fetch;

import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.cdlib.mrt.ingestqueue.manifest.CheckmManifest;
import org.cdlib.mrt.ingestqueue.manifest.DigestAlgorithm;
import org.cdlib.mrt.ingestqueue.manifest.ManifestException;
import org.cdlib.mrt.ingestqueue.queue.model.JobConfiguration;

/**
 * What an object's files are, from its job's configuration ({@code payload_type}):
 * <ul>
 * <li>{@code file}: one file at {@code payload_url}, named {@code file_name} or the URL's last segment;</li>
 * <li>{@code object_manifest}: one file per row of the checkm object manifest at {@code payload_url};</li>
 * <li>{@code container}: one zip/tar/tar.gz at {@code payload_url}, unpacked into producer/ after download.</li>
 * </ul>
 * Every URL and name is checked before anything is fetched, so a bad manifest changes nothing.
 */
public record Payload(Type type, String source, List<ObjectFile> files) {

    /** An object manifest is read into memory; beyond this it is refused. */
    public static final long MAX_MANIFEST_BYTES = 64L * 1024 * 1024;

    public enum Type {
        FILE, OBJECT_MANIFEST, CONTAINER;

        static Type of(String payloadType) throws FetchException {
            String t = payloadType == null ? "" : payloadType.strip().toLowerCase(Locale.ROOT).replace('-', '_');
            return switch (t) {
                case "file" -> FILE;
                case "object_manifest", "manifest" -> OBJECT_MANIFEST;
                case "container" -> CONTAINER;
                default -> throw new FetchException("unknown payload_type '" + payloadType
                        + "' (expected file, object_manifest or container)");
            };
        }
    }

    /** The container file, for a container payload. */
    public ObjectFile container() {
        return files.get(0);
    }

    public static Payload of(JobConfiguration c, Fetcher fetcher) throws FetchException {
        Type type = Type.of(c.payloadType());
        URI url = fetcher.policy().check(c.payloadUrl());
        if (type == Type.OBJECT_MANIFEST) {
            return new Payload(type, c.payloadUrl(), manifestFiles(c.payloadUrl(), url, fetcher));
        }
        String name = named(c.fileName() != null && !c.fileName().isBlank() ? c.fileName() : lastSegment(url),
                "payload " + c.payloadUrl());
        DigestAlgorithm alg = null;
        if (c.digestType() != null && !c.digestType().isBlank()) {
            try {
                alg = DigestAlgorithm.fromName(c.digestType());
            } catch (IllegalArgumentException e) {
                throw new FetchException("payload " + c.payloadUrl() + ": " + e.getMessage());
            }
        }
        String value = c.digestValue() == null || c.digestValue().isBlank() ? null : c.digestValue().strip();
        if ((alg == null) != (value == null)) {
            throw new FetchException(
                    "payload " + c.payloadUrl() + ": digest_type and digest_value must be given together");
        }
        return new Payload(type, c.payloadUrl(), List.of(new ObjectFile(name, url, alg, value, c.fileSize())));
    }

    private static List<ObjectFile> manifestFiles(String source, URI url, Fetcher fetcher) throws FetchException {
        CheckmManifest manifest;
        try {
            manifest = CheckmManifest.parse(fetcher.text(url, MAX_MANIFEST_BYTES));
        } catch (ManifestException e) {
            throw new FetchException("object manifest " + source + ": " + e.getMessage());
        }
        if (manifest.kind() != CheckmManifest.Kind.OBJECT) {
            throw new FetchException("object manifest " + source + ": is a " + manifest.kind().profileName()
                    + ", expected an mrt-ingest-manifest");
        }
        List<ObjectFile> files = new ArrayList<>();
        Set<String> names = new HashSet<>();
        for (CheckmManifest.Row row : manifest.rows()) {
            String where = "object manifest " + source + " line " + row.line();
            URI fileUrl;
            try {
                fileUrl = fetcher.policy().check(row.fileUrl());
            } catch (FetchException e) {
                throw new FetchException(where + ": " + e.getMessage());
            }
            String name = named(row.fileName() != null ? row.fileName() : lastSegment(fileUrl), where);
            if (!names.add(name)) {
                throw new FetchException(where + ": file name '" + name + "' appears twice");
            }
            DigestAlgorithm alg = row.hashAlgorithm() == null ? null : DigestAlgorithm.fromName(row.hashAlgorithm());
            files.add(new ObjectFile(name, fileUrl, alg, row.hashValue(), row.fileSize()));
        }
        if (files.isEmpty()) {
            throw new FetchException("object manifest " + source + ": lists no file");
        }
        return List.copyOf(files);
    }

    private static String named(String name, String where) throws FetchException {
        try {
            return SafeName.check(name);
        } catch (FetchException e) {
            throw new FetchException(where + ": " + e.getMessage());
        }
    }

    /** The URL's last path segment, decoded ({@code my%20file.txt} is {@code my file.txt}). */
    static String lastSegment(URI url) {
        String path = url.getRawPath() == null ? "" : url.getRawPath();
        String raw = path.substring(path.lastIndexOf('/') + 1);
        return URLDecoder.decode(raw.replace("+", "%2B"), StandardCharsets.UTF_8);
    }
}
