# syntax=docker/dockerfile:1
# Postforge: one image for every role. ROLE=all (default) serves HTTP and runs the job workers,
# ROLE=web only serves HTTP, ROLE=worker only runs the workers. Migrations run at start (under an
# advisory lock, so several copies may start at once).

# ---- build: every dependency, then the Remix build (build/, public/build/) and the compiled
# server, ledger CLI and migration CLI (build/server/) ----
FROM node:22-bookworm-slim AS build
WORKDIR /app
# patches/ before npm ci: its postinstall applies them (patch-package, docs/development.md "Patched packages").
COPY package.json package-lock.json ./
COPY patches ./patches
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build

# ---- deps: production dependencies only (no tsx, no build tools) ----
FROM node:22-bookworm-slim AS deps
WORKDIR /app
# The runtime loads the patched packages from here: patch-package is a production dependency so
# that this install applies the patches too.
COPY package.json package-lock.json ./
COPY patches ./patches
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

# ---- runtime ----
FROM node:22-bookworm-slim AS runtime
WORKDIR /app
ENV NODE_ENV=production \
    PORT=3000 \
    ROLE=all \
    DATA_DIR=/data
COPY --from=deps --chown=root:root /app/node_modules ./node_modules
COPY --chown=root:root package.json package-lock.json ./
# The SQL the compiled code reads at run time (migrations, and any other .sql under db/).
COPY --chown=root:root db ./db
COPY --from=build --chown=root:root /app/build ./build
COPY --from=build --chown=root:root /app/public ./public
# The code stays root-owned and read-only to the app; only DATA_DIR is writable (it holds the
# embedded Postgres when DATABASE_URL is unset, for a quick try-out; deployments set DATABASE_URL).
RUN mkdir -p /data && chown node:node /data
VOLUME ["/data"]
USER node
EXPOSE 3000
# Every role answers /healthz on PORT (a worker-only copy serves its health checks alone). (Start-up
# takes seconds; three failures 30 s apart are needed before a copy is marked unhealthy.)
HEALTHCHECK --interval=30s --timeout=5s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# The compiled server in one node process: SIGTERM (docker stop) reaches the app's graceful
# shutdown directly. An error nothing caught ends it with exit code 70 after one fatal log line:
# run the image with a restart policy (compose `restart: unless-stopped`, `docker run --restart
# unless-stopped`; Kubernetes restarts it by itself) so that such a copy comes back. It applies pending migrations, then serves and/or runs the workers.
# The heap's sizing (docs/operators.md, "Running more than one process", Memory): a 16 MB young generation lets a page's short-lived objects
# die young, and the old generation grows to twice its live size before a full collection (V8
# lets it reach about four times), which keeps peak RSS under load near 210 MB at the same CPU
# (measured by tests/bench/ssr.ts, which starts the server with the same flags).
CMD ["node", "--max-semi-space-size=16", "--heap-growing-percent=100", "build/server/index.js"]
