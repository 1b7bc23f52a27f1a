package org.cdlib.mrt.ingestqueue.services;

import org.apache.camel.component.http.HttpClientConfigurer;
import org.apache.hc.client5.http.impl.ChainElement;
import org.apache.hc.client5.http.impl.classic.HttpClientBuilder;

/**
 * The last moment a fenced call may be sent, checked by HttpClient. A step's fence
 * ({@code verifyHeldUntil}) checks that this worker still holds its job and gives its run
 * ({@link Run#sendBy}) the deadline until which that answer holds; HttpClient checks it on the
 * calling thread just before it writes the request (after the connection is leased and open), so
 * the window in which a host paused past its session (SIGSTOP, a stalled VM) can still send after
 * another host took the job shrinks from a ZooKeeper round trip and a connection set-up to a clock
 * read. Seen in the chaos test: a storage add sent a second time by a host paused right after its
 * fence, on waking.
 */
public final class SendDeadline implements HttpClientConfigurer {
    @Override
    public void configureHttpClient(HttpClientBuilder builder) {
        String before = ChainElement.MAIN_TRANSPORT.name();
        builder.addExecInterceptorBefore(before, "send-deadline", (request, scope, chain) -> {
            Run.checkSend(request.getMethod() + " " + request.getRequestUri());
            return chain.proceed(request, scope);
        });
    }
}
