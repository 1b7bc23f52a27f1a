# docker build -t ingest-queue .     (from a clean clone: the jar is built inside)
# docker run -d --name ingest -p 8080:8080 -v ingest-data:/data -v "$PWD/profiles":/profiles:ro \
#            -e JAVA_TOOL_OPTIONS="-Dingest.api.users=..." ingest-queue
# docker stop -t 75 ingest     (camel.main.shutdown-timeout is 60 s: work in hand gets to finish)
FROM maven:3.9-eclipse-temurin-17 AS build
WORKDIR /src
COPY pom.xml ./
RUN mvn -B -q dependency:go-offline
COPY src/ src/
RUN mvn -B -q package -DskipTests

FROM eclipse-temurin:17-jre
RUN useradd --system --home-dir /opt/ingest-queue --shell /usr/sbin/nologin ingest \
    && mkdir -p /data /profiles && chown ingest /data
WORKDIR /opt/ingest-queue
COPY --from=build /src/target/ingest-queue.jar ingest-queue.jar
COPY application.properties ./
COPY routes/ routes/
COPY profiles/ /profiles/
# the queue (embedded ZooKeeper, working directories, OCFL store, H2 inventory, outbox) and the profiles
VOLUME ["/data", "/profiles"]
USER ingest
EXPOSE 8080
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
    CMD ["bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/8080 && printf 'GET /api/health HTTP/1.0\\r\\n\\r\\n' >&3 && head -1 <&3 | grep -q ' 200 '"]
ENTRYPOINT ["java", "-Xmx256m", "-XX:MaxMetaspaceSize=128m", \
    "-Dzookeeper.embedded.dir=/data/zookeeper", "-Dingest.home=/data/queue", "-Dingest.profiles=/profiles", \
    "-Dingest.storage.local.root=/data/storage", "-Dingest.inventory.local.url=jdbc:h2:file:/data/inventory/inventory", \
    "-Dingest.mail.outbox=/data/outbox", "-jar", "ingest-queue.jar"]
