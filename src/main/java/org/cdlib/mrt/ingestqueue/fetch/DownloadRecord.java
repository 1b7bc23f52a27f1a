package org.cdlib.mrt.ingestqueue.fetch;

import com.fasterxml.jackson.core.JsonProcessingException;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.Map;
import org.cdlib.mrt.ingestqueue.manifest.DigestAlgorithm;
import org.cdlib.mrt.ingestqueue.queue.model.QueueJson;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The files of a job already downloaded and checked, so that a requeued download fetches only
 * what is missing or wrong. One JSON line is appended per completed file
 * ({@code .download/complete.jsonl}); a torn last line (a crash mid-write) is ignored. A file
 * counts as complete only while its size and modification time still match the line, the
 * URL is the same and any digest now asked for is the one recorded.
 */
public final class DownloadRecord {
    private static final Logger LOG = LoggerFactory.getLogger(DownloadRecord.class);
    /** The record's file in the job's {@code .download/}. */
    public static final String FILE = "complete.jsonl";

    /** One completed file; for a container, {@code size} is the bytes unpacked into producer/. */
    public record Entry(String name, String url, long size, long modified, Map<String, String> digests,
            boolean container) {
    }

    private final Path file;
    private final Map<String, Entry> entries = new HashMap<>();

    private DownloadRecord(Path file) {
        this.file = file;
    }

    /** The record of the job whose working directory is {@code wd}. */
    public static DownloadRecord of(WorkingDirectory wd) throws FetchException {
        return read(wd.downloads().resolve(FILE));
    }

    public static DownloadRecord read(Path file) throws FetchException {
        DownloadRecord r = new DownloadRecord(file);
        if (!Files.exists(file)) {
            return r;
        }
        try {
            for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                if (line.isBlank()) {
                    continue;
                }
                try {
                    Entry e = QueueJson.MAPPER.readValue(line, Entry.class);
                    r.entries.put(e.name(), e);
                } catch (JsonProcessingException e) {
                    LOG.warn(
                            "{}: skipping an unreadable line (an interrupted write): {}", file, e.getOriginalMessage());
                }
            }
        } catch (IOException e) {
            throw new FetchException("cannot read " + file + ": " + Fetcher.describe(e), e);
        }
        return r;
    }

    /** True when {@code target} holds {@code f} as downloaded and checked before. */
    public synchronized boolean isComplete(ObjectFile f, Path target) {
        Entry e = entries.get(f.name());
        if (e == null || e.container() || !e.url().equals(f.url().toString())) {
            return false;
        }
        if (f.size() != null && f.size() != e.size()) {
            return false;
        }
        if (f.hasDigest() && !f.digestType().matches(f.digestValue(), e.digests().get(f.digestType().checkmName()))) {
            return false;
        }
        return matchesDisk(e, target);
    }

    /**
     * The digests the download computed for the file named {@code name} (by checkm name: {@code sha-256}), while
     * {@code target} is still that file: its size and modification time as recorded. Empty for a file not
     * downloaded whole (a container's), and for one changed since: whoever needs them then reads the file.
     */
    public synchronized Map<String, String> digests(String name, Path target) {
        Entry e = entries.get(name);
        return e == null || e.container() || e.digests() == null || !matchesDisk(e, target) ? Map.of() : e.digests();
    }

    /** The container entry for {@code f}, if it was unpacked before. */
    public synchronized Entry container(ObjectFile f) {
        Entry e = entries.get(f.name());
        return e != null && e.container() && e.url().equals(f.url().toString()) ? e : null;
    }

    public synchronized void add(ObjectFile f, Path target, Map<DigestAlgorithm, String> digests)
            throws FetchException {
        try {
            append(new Entry(f.name(), f.url().toString(), Files.size(target),
                    Files.getLastModifiedTime(target, LinkOption.NOFOLLOW_LINKS).toMillis(), names(digests), false));
        } catch (IOException e) {
            throw new FetchException("cannot record " + target + ": " + Fetcher.describe(e), e);
        }
    }

    public synchronized void addContainer(ObjectFile f, long unpackedBytes, Map<DigestAlgorithm, String> digests)
            throws FetchException {
        append(new Entry(f.name(), f.url().toString(), unpackedBytes, 0, names(digests), true));
    }

    private void append(Entry e) throws FetchException {
        try {
            if (!Files.isDirectory(file.getParent())) {
                Files.createDirectories(file.getParent());
            }
            try (OutputStream out = Files.newOutputStream(file, StandardOpenOption.CREATE, StandardOpenOption.APPEND)) {
                out.write((QueueJson.MAPPER.writeValueAsString(e) + "\n").getBytes(StandardCharsets.UTF_8));
            }
            entries.put(e.name(), e);
        } catch (IOException ex) {
            throw new FetchException("cannot write " + file + ": " + Fetcher.describe(ex), ex);
        }
    }

    private static boolean matchesDisk(Entry e, Path target) {
        try {
            return Files.isRegularFile(target, LinkOption.NOFOLLOW_LINKS) && Files.size(target) == e.size()
                    && Files.getLastModifiedTime(target, LinkOption.NOFOLLOW_LINKS).toMillis() == e.modified();
        } catch (IOException ex) {
            return false;
        }
    }

    private static Map<String, String> names(Map<DigestAlgorithm, String> digests) {
        Map<String, String> m = new HashMap<>();
        digests.forEach((a, v) -> m.put(a.checkmName(), v));
        return m;
    }
}
