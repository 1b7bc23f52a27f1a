package org.cdlib.mrt.ingestqueue.steps;

import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.options;

import com.github.tomakehurst.wiremock.WireMockServer;
import org.cdlib.mrt.ingestqueue.testing.StoreTest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;

/** A step that fetches: a real queue store and a WireMock server for the files. */
abstract class WebStepTest extends StoreTest {
    static WireMockServer web;

    @BeforeAll
    static void startWeb() {
        web = new WireMockServer(options().dynamicPort());
        web.start();
    }

    @AfterAll
    static void stopWeb() {
        web.stop();
    }

    @BeforeEach
    void resetWeb() {
        web.resetAll();
    }

    String url(String path) {
        return web.baseUrl() + path;
    }
}
