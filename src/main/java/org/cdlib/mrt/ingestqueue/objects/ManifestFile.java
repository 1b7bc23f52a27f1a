package org.cdlib.mrt.ingestqueue.objects;

/** One file of a stored version as the storage manifest lists it (what inventory records of it). */
public record ManifestFile(String name, long size, String digestType, String digestValue, String mimeType) {
}
