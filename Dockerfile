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

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/verdict /verdict
# SQLite lives on a volume; PostgreSQL is selected with VERDICT_DATABASE_URL.
ENV VERDICT_DATABASE_URL=sqlite:///data/verdict.db
VOLUME /data
USER nonroot:nonroot
EXPOSE 8080
ENTRYPOINT ["/verdict"]
CMD ["serve"]
