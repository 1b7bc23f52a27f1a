# docker build -t ingest-queue .     (from a clean clone: the jar is built inside)
# docker run -d --name ingest -p 8080:8080 -v ingest-data:/data \
#            -v "$PWD/profiles":/profiles:ro -v "$PWD/routes":/opt/ingest-queue/routes:ro \
#            -e INGEST_STATUS_BASE_URL=https://ingest.example.org -e INGEST_FILES_BASE_URL=https://ingest.example.org/files \
#            -e INGEST_API_USERS='ops:pbkdf2-sha256$…:admin' ingest-queue
# docker stop -t 75 ingest     (camel.main.shutdown-timeout is 60 s: work in hand gets to finish)
# Any configuration key is an environment variable: upper case, '.' and '-' as '_' (ingest.http.port: INGEST_HTTP_PORT).
# The JVM's options from the environment: -e JAVA_OPTS="-Xmx1g -XX:MaxMetaspaceSize=128m" replaces the image's
# default, a share of the container's memory (docker run -m 1g: a 512 MB heap).
# compose.yaml runs a production-like trial: a ZooKeeper ensemble of 3, two instances, PostgreSQL.
FROM maven:3.9-eclipse-temurin-17 AS build
WORKDIR /src
COPY pom.xml ./
RUN mvn -B -q dependency:go-offline
# the inputs of `mvn package` (pom.xml's resources: routes/, profiles/ and application.properties go into the jar
# too); DockerfileJarIT builds a jar from exactly what these lines copy and checks it against the one mvn package makes
COPY src/ src/
COPY routes/ routes/
COPY profiles/ profiles/
COPY application.properties ./
RUN mvn -B -q package -Dmaven.test.skip=true

FROM eclipse-temurin:17-jre
# a fixed uid, so that a bind-mounted folder can be given to it: chown 10001 ./data
RUN useradd --system --uid 10001 --user-group --home-dir /opt/ingest-queue --shell /usr/sbin/nologin ingest \
    && mkdir -p /data /profiles /opt/ingest-queue/routes && chown ingest:ingest /data /profiles /opt/ingest-queue/routes
WORKDIR /opt/ingest-queue
COPY --from=build /src/target/ingest-queue.jar ingest-queue.jar
COPY application.properties ./
# owned by the service's user: a new named volume starts as a copy of these, writable by it
COPY --chown=ingest:ingest routes/ routes/
COPY --chown=ingest:ingest profiles/ /profiles/
# the image's places, as environment (which overrides application.properties; docker run -e and compose override these)
ENV INGEST_HTTP_PORT=8080 \
    ZOOKEEPER_EMBEDDED_DIR=/data/zookeeper \
    INGEST_HOME=/data/queue \
    INGEST_PROFILES=/profiles \
    INGEST_STORAGE_LOCAL_ROOT=/data/storage \
    INGEST_INVENTORY_LOCAL_URL=jdbc:h2:file:/data/inventory/inventory \
    INGEST_MAIL_OUTBOX=/data/outbox
# the queue (embedded ZooKeeper, working directories, OCFL store, H2 inventory, outbox), the profiles, the routes
VOLUME ["/data", "/profiles", "/opt/ingest-queue/routes"]
USER ingest
EXPOSE 8080
STOPSIGNAL SIGTERM
# the port the service listens on, as configured (INGEST_HTTP_PORT)
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
    CMD ["bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/${INGEST_HTTP_PORT:-8080} && printf 'GET /api/health HTTP/1.0\\r\\n\\r\\n' >&3 && head -1 <&3 | grep -q ' 200 '"]
# The JVM's memory, from the environment: JAVA_OPTS (docker run -e JAVA_OPTS=... replaces it); by default half of
# the container's memory limit is heap. On the embedded ZooKeeper the heap holds ZooKeeper's tree too: the open work
# and the finished jobs it keeps (ingest.history.keep-jobs); beside a ZooKeeper of its own 256m is enough
# (compose.yaml sets that). The figures: docs/BENCHMARKS.md, "History (issue 44)".
ENV JAVA_OPTS="-XX:MaxRAMPercentage=50 -XX:MaxMetaspaceSize=128m"
# exec: java is the container's process 1 and gets docker stop's SIGTERM; arguments pass on (docker run … demo)
ENTRYPOINT ["sh", "-c", "exec java $JAVA_OPTS -jar ingest-queue.jar \"$@\"", "ingest-queue"]
