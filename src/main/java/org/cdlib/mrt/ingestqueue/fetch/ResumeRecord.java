package org.cdlib.mrt.ingestqueue.fetch;

import com.fasterxml.jackson.core.JsonProcessingException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import org.cdlib.mrt.ingestqueue.queue.model.QueueJson;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a partial download needs to be resumed by whoever holds its job next: the URL, the validator the server
 * answered with when the transfer began (a strong ETag, else Last-Modified) and the bytes of the partial file
 * already flushed to disk. One small JSON file beside the partial file in the job's {@code .download/} (never in
 * ZooKeeper), replaced atomically; a file that cannot be read is no record (the download starts from byte 0).
 */
public record ResumeRecord(String url, String validator, long bytes) {
    private static final Logger LOG = LoggerFactory.getLogger(ResumeRecord.class);
    /** A record is a URL, a validator and a number; beyond this it is not one of ours. */
    private static final long MAX_BYTES = 64 * 1024;

    /** The record at {@code file}, or null when there is none or it cannot be read. */
    public static ResumeRecord read(Path file) {
        try {
            if (!Files.isRegularFile(file) || Files.size(file) > MAX_BYTES) {
                return null;
            }
            ResumeRecord r = QueueJson.MAPPER.readValue(Files.readAllBytes(file), ResumeRecord.class);
            return r.url() == null || r.validator() == null || r.bytes() < 0 ? null : r;
        } catch (JsonProcessingException e) {
            LOG.warn("{}: not a resume record, the download starts from byte 0: {}", file, e.getOriginalMessage());
            return null;
        } catch (IOException e) {
            LOG.warn("{}: cannot read, the download starts from byte 0: {}", file, Fetcher.describe(e));
            return null;
        }
    }

    /** Writes this record to {@code file}: a temporary file flushed, then moved over it in one step. */
    public void write(Path file) throws IOException {
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            ByteBuffer b = ByteBuffer.wrap(QueueJson.MAPPER.writeValueAsBytes(this));
            while (b.hasRemaining()) {
                ch.write(b);
            }
            ch.force(true);
        }
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    /** Removes the record at {@code file}: the partial file beside it is complete, or not worth resuming. */
    public static void clear(Path file) throws IOException {
        try {
            Files.deleteIfExists(file);
        } catch (NoSuchFileException e) {
            // gone already
        }
    }
}
