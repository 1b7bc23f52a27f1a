package org.cdlib.mrt.ingestqueue.steps;

import java.io.IOException;
import org.cdlib.mrt.ingestqueue.fetch.NoRoomYet;
import org.cdlib.mrt.ingestqueue.fetch.ObjectFile;
import org.cdlib.mrt.ingestqueue.fetch.PartialDownload;

/**
 * The disk asked again right before a file of a declared size is fetched: what is left of it to download, and
 * storage's copy of it where that lands on the same filesystem ({@code copies} 2), must leave the reserve of
 * {@code ingest.download.min-free-percent} free. Others may have filled the disk since the job was admitted; then
 * the job waits ({@link NoRoomYet}) rather than fails.
 */
record RoomCheck(FreeSpace disk, int copies, int minFreePercent) {

    void check(ObjectFile f, String label, PartialDownload partial) throws NoRoomYet {
        if (f.size() == null) {
            return; // asked at the answer's length instead (DownloadFile)
        }
        long total;
        long usable;
        long onDisk;
        try {
            total = disk.totalBytes();
            usable = disk.usableBytes();
            onDisk = partial.onDisk();
        } catch (IOException e) {
            throw new NoRoomYet(label + ": cannot read the free space of " + disk + ": " + e.getMessage());
        }
        long left = Math.max(0, f.size() - onDisk);
        long need = left + f.size() * (copies - 1);
        long reserve = total / 100 * minFreePercent;
        if (usable - need < reserve) {
            throw new NoRoomYet(String.format("%s: waits for room: needs %d bytes now (%d to download%s), %d of %d "
                    + "bytes usable, %d kept free (ingest.download.min-free-percent)", label, need, left,
                    copies == 1 ? "" : " and " + f.size() + " for storage's copy", usable, total, reserve),
                    need, usable, reserve);
        }
    }
}
