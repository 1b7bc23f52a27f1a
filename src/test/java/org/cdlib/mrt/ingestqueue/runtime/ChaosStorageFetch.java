package org.cdlib.mrt.ingestqueue.runtime;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.awaitility.core.ConditionTimeoutException;
import org.cdlib.mrt.ingestqueue.objects.StorageManifest;

/**
 * Storage's fetch of an add's files, as Merritt storage does before it makes a version: every URL
 * of the storage manifest, through whichever service host answers (the files' base URL is a load
 * balancer's in production; here the recording server's, and each host is tried in turn, a paused
 * one timing out, a starting one tried again for a few seconds). A host's definite refusal (the
 * URL's lease no longer holds the job: its sender lost it) fails the add, which then stores nothing.
 */
final class ChaosStorageFetch {
    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2)).build();
    /**
     * How long a host is given to serve one file, and the whole fetch: under the machine's load a
     * host answers in seconds, not milliseconds (8 s in all failed 37 jobs of 300 in one run with
     * "no service host answered", all three hosts alive); the whole stays within the hosts' wait
     * for storage's answer ({@code camel.component.http.response-timeout}, {@link ChaosTest#CALL_TIMEOUT}).
     */
    static final Duration PER_FILE = Duration.ofSeconds(5);
    static final Duration IN_ALL = ChaosTest.CALL_TIMEOUT.minusSeconds(5);
    private final String filesBase;
    private final Supplier<List<String>> hosts;
    private final AtomicInteger next = new AtomicInteger();

    /**
     * {@code filesBase}: the base URL the hosts were configured with;
     * {@code hosts}: their own bases ({@code http://127.0.0.1:port}).
     */
    ChaosStorageFetch(String filesBase, Supplier<List<String>> hosts) {
        this.filesBase = filesBase;
        this.hosts = hosts;
    }

    /** Null when every file of the manifest was fetched; else why the add fails. */
    String fetch(String manifest) {
        List<String> urls = new ArrayList<>();
        for (String line : manifest.split("\n")) {
            if (!line.isBlank() && !line.startsWith("#%")) {
                String url = StorageManifest.uncell(line.split(" \\| ", 2)[0]);
                if (!url.startsWith(filesBase + "/")) {
                    return "not a file URL of the service: " + url;
                }
                urls.add(url);
            }
        }
        if (urls.isEmpty()) {
            return "the storage manifest names no file";
        }
        // a host that is starting (refused), killed or paused (no answer in time) is passed over; the hosts are
        // asked again for a while, as a balancer's health check would bring a restarted host back
        int start = next.getAndIncrement();
        AtomicReference<String> answer = new AtomicReference<>();
        try {
            await().atMost(IN_ALL).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(200))
                    .until(() -> answered(urls, start, answer));
        } catch (ConditionTimeoutException e) {
            return "no service host answered for " + urls.get(0);
        }
        return answer.get().isEmpty() ? null : answer.get();
    }

    /** One round of the hosts: true once one answered every file ({@code answer} empty) or refused one (why). */
    private boolean answered(List<String> urls, int start, AtomicReference<String> answer) throws InterruptedException {
        List<String> bases = hosts.get();
        for (int h = 0; h < bases.size(); h++) {
            String host = bases.get(Math.floorMod(start + h, bases.size()));
            try {
                for (String url : urls) {
                    HttpResponse<Void> r = CLIENT.send(
                            HttpRequest.newBuilder(URI.create(host + "/files" + url.substring(filesBase.length())))
                                    .timeout(PER_FILE)
                                    .build(),
                            HttpResponse.BodyHandlers.discarding());
                    if (r.statusCode() != 200) {
                        answer.set("GET " + url + ": HTTP " + r.statusCode() + " from " + host);
                        return true;
                    }
                }
                answer.set("");
                return true;
            } catch (IOException e) {
                // down, starting or paused: the next host
            }
        }
        return false;
    }
}
