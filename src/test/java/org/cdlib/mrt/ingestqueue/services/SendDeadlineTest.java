package org.cdlib.mrt.ingestqueue.services;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.options;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.tomakehurst.wiremock.WireMockServer;
import java.io.InterruptedIOException;
import java.util.concurrent.TimeUnit;
import org.apache.hc.client5.http.classic.methods.HttpPost;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClientBuilder;
import org.cdlib.mrt.ingestqueue.queue.errors.LeaseLapsedException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A fenced call goes out before its deadline or not at all, counted at the service. */
class SendDeadlineTest {
    WireMockServer storage;
    CloseableHttpClient client;
    /** The run the calls are made in, as a worker's. */
    Run run;

    @BeforeEach
    void start() {
        storage = new WireMockServer(options().dynamicPort());
        storage.start();
        storage.stubFor(post(urlEqualTo("/add/9999/ark")).willReturn(aResponse().withStatus(200).withBody("ok")));
        HttpClientBuilder b = HttpClientBuilder.create().disableAutomaticRetries();
        new SendDeadline().configureHttpClient(b);
        client = b.build();
        run = Run.begin();
    }

    @AfterEach
    void stop() throws Exception {
        run.end();
        client.close();
        storage.stop();
    }

    private int send() throws Exception {
        return client.execute(new HttpPost(storage.baseUrl() + "/add/9999/ark"), r -> r.getCode());
    }

    @Test
    void aPassedDeadlineSendsNothingOnce() throws Exception {
        run.sendBy(System.nanoTime() - 1);
        InterruptedIOException e = assertThrows(InterruptedIOException.class, this::send);
        assertTrue(e.getMessage().contains("not sent"), e.getMessage());
        assertTrue(e.getCause() instanceof LeaseLapsedException, "the job stays, not failed");
        storage.verify(0, postRequestedFor(urlEqualTo("/add/9999/ark")));
        assertEquals(200, send()); // used once: the next, unarmed call goes out
        storage.verify(1, postRequestedFor(urlEqualTo("/add/9999/ark")));
    }

    @Test
    void aDeadlineAheadLetsTheCallGo() throws Exception {
        run.sendBy(System.nanoTime() + TimeUnit.SECONDS.toNanos(30));
        assertEquals(200, send());
        storage.verify(1, postRequestedFor(urlEqualTo("/add/9999/ark")));
    }

    @Test
    void aDeadlineLeftUnusedEndsWithItsRun() throws Exception {
        run.sendBy(System.nanoTime() - 1); // a step armed it and failed before its send
        run.end(); // the job's run ends; the thread's next job has a run of its own
        run = Run.begin();
        assertEquals(200, send());
        storage.verify(1, postRequestedFor(urlEqualTo("/add/9999/ark")));
    }
}
