package org.cdlib.mrt.ingestqueue.fetch;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.cdlib.mrt.ingestqueue.manifest.DigestAlgorithm;

/**
 * Where one file of an object is downloaded before it is checked and kept: {@code .download/<key>.part} and its
 * {@link ResumeRecord} {@code <key>.resume} beside it, the key a digest of the file's name (which may hold
 * folders), so the job's next holder finds both. A partial file without its record cannot be resumed.
 */
public record PartialDownload(Path part, Path resume) {
    private static final String PART = ".part";
    private static final String RESUME = ".resume";

    public static PartialDownload of(WorkingDirectory wd, String name) {
        DigestAlgorithm.Digester d = DigestAlgorithm.SHA256.newDigester();
        byte[] b = name.getBytes(StandardCharsets.UTF_8);
        d.update(b, 0, b.length);
        String key = d.hex().substring(0, 32);
        return new PartialDownload(wd.downloads().resolve(key + PART), wd.downloads().resolve(key + RESUME));
    }

    /** Whether the next attempt may continue the partial file: its record is there. */
    public boolean resumable() {
        return Files.exists(resume);
    }

    /** The bytes of the partial file on disk (0 when there is none). */
    public long onDisk() throws IOException {
        return Files.exists(part) ? Files.size(part) : 0;
    }

    /**
     * Removes what earlier attempts left in {@code downloads} that cannot be resumed: a partial file without its
     * record, a record without its partial file, a record's temporary file.
     */
    public static void removeUnresumable(Path downloads) throws IOException {
        List<Path> left = new ArrayList<>();
        try (DirectoryStream<Path> all = Files.newDirectoryStream(downloads, "*.{part,resume,tmp}")) {
            all.forEach(left::add);
        }
        for (Path p : left) {
            String name = p.getFileName().toString();
            Path other = name.endsWith(PART) ? p.resolveSibling(name.replace(PART, RESUME))
                    : p.resolveSibling(name.replace(RESUME, PART));
            if (name.endsWith(".tmp") || !Files.exists(other)) {
                Files.deleteIfExists(p);
            }
        }
    }
}
