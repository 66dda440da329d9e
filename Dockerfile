# schema-registry on Debian 12, in two stages.
#
#   build:   the same scripts/install-deps.sh as `make` (group "build"), then
#            only the server binary, Release-with-debug-info like `make run`.
#   runtime: debian:12-slim with the binary's shared libraries (group "image")
#            and an unprivileged user; no compiler, no PostgreSQL server.
#
# The image needs an external PostgreSQL: set SCHEMA_REGISTRY_DATABASE_URL
# (docker-compose.yml does). docs/operations.md, "Docker Compose".

FROM debian:12-slim AS build
WORKDIR /src
COPY scripts/install-deps.sh scripts/install-deps.sh
RUN ./scripts/install-deps.sh build && rm -rf /var/lib/apt/lists/*
COPY . .
RUN cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSR_TESTS=OFF \
 && cmake --build build -j"$(nproc)" --target schema-registry

FROM debian:12-slim AS runtime
COPY scripts/install-deps.sh /usr/local/lib/schema-registry/install-deps.sh
RUN /usr/local/lib/schema-registry/install-deps.sh image && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --home-dir /var/lib/schema-registry --create-home registry
COPY --from=build /src/build/schema-registry /usr/local/bin/schema-registry
USER registry
WORKDIR /var/lib/schema-registry
ENV SCHEMA_REGISTRY_LISTEN=0.0.0.0:8081
EXPOSE 8081
HEALTHCHECK --interval=5s --timeout=3s --start-period=10s --retries=3 \
  CMD curl -fsS -o /dev/null http://127.0.0.1:8081/health/live || exit 1
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/local/bin/schema-registry"]
CMD ["serve"]
