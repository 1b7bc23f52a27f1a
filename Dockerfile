# Build: mvn -q -B package -DskipTests && docker build -t ingest-queue .
FROM eclipse-temurin:17-jre
WORKDIR /opt/ingest-queue
COPY target/ingest-queue.jar ingest-queue.jar
COPY application.properties ./
COPY routes/ routes/
COPY profiles/ profiles/
VOLUME /opt/ingest-queue/data
EXPOSE 8080
# camel.main.shutdown-timeout is 60 s: stop with `docker stop -t 75` so work in hand can finish
STOPSIGNAL SIGTERM
ENTRYPOINT ["java", "-Xmx256m", "-XX:MaxMetaspaceSize=128m", "-jar", "ingest-queue.jar"]
