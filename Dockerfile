# syntax=docker/dockerfile:1
# Build a static binary, then ship it alone on a distroless non-root base.
#
# Both bases are pinned by the digest of their multi-arch index, so that a
# rebuild of a commit builds on the same images whatever their tags point at
# that week (and the registry's tag lookup is off the path). Dependabot
# (.github/dependabot.yml) proposes new digests; to refresh by hand:
#   crane digest golang:1.26
#   crane digest gcr.io/distroless/static-debian12:nonroot
# and keep the tag beside the digest, for the reader.
FROM golang:1.26@sha256:3aff6657219a4d9c14e27fb1d8976c49c29fddb70ba835014f477e1c70636647 AS build
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

FROM gcr.io/distroless/static-debian12:nonroot@sha256:afa5c872c891853ca7fcf1f12c3edb23f7eeef36189728842dd51042ff57f7ab
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
