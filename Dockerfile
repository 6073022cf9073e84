# syntax=docker/dockerfile:1
# Build a static binary, then ship it alone on a distroless non-root base.
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# .dockerignore keeps .git out of the context, so the version and revision
# that `verdict version` prints come in as arguments (.ci/run passes both).
ARG VERSION=dev
ARG REVISION=
RUN CGO_ENABLED=0 GOOS=linux go build -trimpath \
      -ldflags "-s -w -X main.version=${VERSION} -X main.revision=${REVISION}" \
      -o /out/verdict ./cmd/verdict
# The SQLite volume's mount point, owned by the runtime user, so a plain
# `docker run` can create its database there.
RUN mkdir -p /out/data

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/verdict /verdict
COPY --from=build --chown=65532:65532 /out/data /data
# SQLite lives on a volume; PostgreSQL is selected with VERDICT_DATABASE_URL.
ENV VERDICT_DATABASE_URL=sqlite:///data/verdict.db
VOLUME /data
USER nonroot:nonroot
EXPOSE 8080
# Distroless has no shell or curl: the binary checks itself.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 CMD ["/verdict", "healthcheck"]
ENTRYPOINT ["/verdict"]
CMD ["serve"]
