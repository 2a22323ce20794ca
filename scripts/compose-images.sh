#!/usr/bin/env bash
# Builds, with no network and no image pulled, every image compose.yaml runs, from this
# machine's files, and prints the settings that point compose.yaml at them:
#
#   CRUCIBLE_IMAGE=localhost/crucible:<tag>              the service, from the Dockerfile
#   CRUCIBLE_POSTGRES_IMAGE=localhost/crucible-postgres:<tag>
#   CRUCIBLE_NATS_IMAGE=localhost/crucible-nats:<tag>
#   CRUCIBLE_REDIS_IMAGE=localhost/crucible-redis:<tag>
#
# As scripts/podman-up.sh builds the sandboxes' runtime image, each image is a root filesystem
# assembled here (the packaged binaries and the shared libraries they link) and imported with
# `podman import`:
# - the service's base: this machine's Node and the libraries it and the native addons in
#   node_modules link; the Dockerfile then builds on it (BASE=...) from the checkout: its
#   node_modules (`npm ci` made them, for this Node) and sources, compiling dist/ inside;
# - NATS: /usr/sbin/nats-server; Redis: /usr/bin/redis-server and redis-cli (the health check);
# - PostgreSQL 15: /usr/lib/postgresql/15 with its share folder, and an entrypoint reading
#   the official image's variables (POSTGRES_USER, _PASSWORD, _DB, _INITDB_ARGS).
# Each tag is a hash of what went in, so a second run finds the image and builds nothing.
#
# Needs root (rootful podman; the images land in its local storage, the one the podman service
# of scripts/podman-up.sh also uses: nothing here stops, resets or prunes anything).
# Usage: scripts/compose-images.sh [checkout]   (default: this script's checkout)
set -euo pipefail

HERE=$(cd "$(dirname "$0")/.." && pwd)
CHECKOUT=$(cd "${1:-$HERE}" && pwd)
STATE="${CRUCIBLE_COMPOSE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/crucible/compose}"
mkdir -p "$STATE"
exec 9>"$STATE/lock"
flock 9

# podman's CLI with the same engine settings as scripts/podman-up.sh (runc, cgroupfs: crun
# refuses cgroup v1 hybrid hosts), in a file of our own
nproc_limit=$(ulimit -u)
nofile_limit=$(ulimit -n)
if [ "$nproc_limit" = unlimited ] || [ "$nproc_limit" -gt 4096 ]; then nproc_limit=4096; fi
if [ "$nofile_limit" = unlimited ] || [ "$nofile_limit" -gt 65536 ]; then nofile_limit=65536; fi
cat >"$STATE/containers.conf" <<CONF
[containers]
default_ulimits = ["nproc=$nproc_limit:$nproc_limit", "nofile=$nofile_limit:$nofile_limit"]
[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
CONF
export CONTAINERS_CONF="$STATE/containers.conf"

for need in podman /usr/sbin/nats-server /usr/bin/redis-server /usr/bin/redis-cli /usr/lib/postgresql/15/bin/postgres; do
  command -v "$need" >/dev/null || {
    echo "compose-images: $need is not installed (apt-get install -y podman nats-server redis-server postgresql-15)" >&2
    exit 1
  }
done
[ -d "$CHECKOUT/node_modules" ] || {
  echo "compose-images: $CHECKOUT has no node_modules; run npm ci there first" >&2
  exit 1
}

WORK=$(mktemp -d "$STATE/build.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

libs_of() { { ldd "$@" 2>/dev/null || true; } | grep -v ':$' | grep -o '/[^ ]*' | sort -u; }
# copies files (symlinks resolved) into the root filesystem $1 at their own paths
put() {
  local root=$1 f
  shift
  for f in "$@"; do
    mkdir -p "$root$(dirname "$f")"
    cp -L "$f" "$root$f"
  done
}
# a tag from the contents of the files (not their paths: the entrypoint is written to a temporary folder)
hash_of() { (for f in "$@"; do sha256sum <"$(readlink -f "$f")"; done) | sha256sum | cut -c1-16; }
# removes the other tags of a repository of ours (older builds); an image a container still uses stays
prune_others() {
  local keep=$1 repo=${1%:*} ref
  for ref in $(podman images --format '{{.Repository}}:{{.Tag}}' --filter "reference=$repo"); do
    [ "$ref" = "$keep" ] || podman rmi "$ref" >/dev/null 2>&1 || true
  done
}
exists() { podman image exists "$1"; }
# a root filesystem with the accounts every image here uses
skeleton() {
  mkdir -p "$1/tmp" "$1/etc" "$1/data"
  chmod 1777 "$1/tmp"
  printf 'root:x:0:0:root:/:/usr/sbin/nologin\npostgres:x:999:999:PostgreSQL:/var/lib/postgresql:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n' >"$1/etc/passwd"
  printf 'root:x:0:\npostgres:x:999:\nnogroup:x:65534:\n' >"$1/etc/group"
  printf 'hosts: files dns\n' >"$1/etc/nsswitch.conf"
}
import() { # root ref changes...
  local root=$1 ref=$2
  shift 2
  local args=()
  for c in "$@"; do args+=(--change "$c"); done
  tar -C "$root" -cf "$WORK/rootfs.tar" .
  podman import --quiet "${args[@]}" "$WORK/rootfs.tar" "$ref" >/dev/null
  rm -f "$WORK/rootfs.tar"
}

# --- the service's base: Node and what it and the native addons link
NODE=$(readlink -f "$(command -v node)")
ADDONS=$(find -L "$CHECKOUT/node_modules" -name '*.node' 2>/dev/null | sort)
NODE_LIBS=$(libs_of "$NODE" $ADDONS)
# getaddrinfo loads these to resolve the stack's service names (glibc's NSS, not linked)
NSS_LIBS=$(ls /lib/x86_64-linux-gnu/libnss_dns.so.2 /lib/x86_64-linux-gnu/libnss_files.so.2 /lib/x86_64-linux-gnu/libresolv.so.2 2>/dev/null || true)
BASE="localhost/crucible-node-base:$(hash_of "$NODE" $NODE_LIBS $NSS_LIBS)"
if ! exists "$BASE"; then
  R="$WORK/node"
  skeleton "$R"
  mkdir -p "$R/usr/bin" "$R/app"
  cp "$NODE" "$R/usr/bin/node"
  put "$R" $NODE_LIBS $NSS_LIBS
  import "$R" "$BASE" 'ENV PATH=/usr/bin' 'CMD ["/usr/bin/node"]'
fi

# --- NATS
NATS_BIN=$(readlink -f /usr/sbin/nats-server)
NATS_LIBS=$(libs_of "$NATS_BIN")
NATS="localhost/crucible-nats:$(hash_of "$NATS_BIN" $NATS_LIBS)"
if ! exists "$NATS"; then
  R="$WORK/nats"
  skeleton "$R"
  mkdir -p "$R/usr/sbin"
  cp "$NATS_BIN" "$R/usr/sbin/nats-server"
  put "$R" $NATS_LIBS
  import "$R" "$NATS" 'ENTRYPOINT ["/usr/sbin/nats-server"]' 'CMD ["-js", "-sd", "/data"]' 'EXPOSE 4222'
fi

# --- Redis
REDIS_BINS="$(readlink -f /usr/bin/redis-server) $(readlink -f /usr/bin/redis-cli)"
REDIS_LIBS=$(libs_of $REDIS_BINS)
REDIS="localhost/crucible-redis:$(hash_of $REDIS_BINS $REDIS_LIBS)"
if ! exists "$REDIS"; then
  R="$WORK/redis"
  skeleton "$R"
  mkdir -p "$R/usr/bin"
  cp "$(readlink -f /usr/bin/redis-server)" "$R/usr/bin/redis-server"
  cp "$(readlink -f /usr/bin/redis-cli)" "$R/usr/bin/redis-cli"
  put "$R" $REDIS_LIBS
  import "$R" "$REDIS" 'ENV PATH=/usr/bin' 'WORKDIR /data' 'CMD ["redis-server"]' 'EXPOSE 6379'
fi

# --- PostgreSQL 15 (and /bin/sh: initdb runs its steps through popen)
PG=/usr/lib/postgresql/15
PG_BINS="$PG/bin/postgres $PG/bin/initdb $PG/bin/pg_isready $PG/bin/psql"
SH=$(readlink -f /bin/sh)
PG_LIBS=$(libs_of $PG_BINS $SH $(find "$PG/lib" -name '*.so' ! -name 'llvmjit*'))
ENTRY="$WORK/postgres-entrypoint"
cat >"$ENTRY" <<'SH'
#!/bin/sh
# The official image's contract, as far as compose.yaml uses it: the first start of an empty
# data folder makes the cluster with POSTGRES_USER / POSTGRES_PASSWORD (password auth from the
# network) and the database POSTGRES_DB; every start then runs postgres on all addresses.
set -e
: "${PGDATA:=/var/lib/postgresql/data}" "${POSTGRES_USER:=postgres}" "${POSTGRES_DB:=$POSTGRES_USER}"
export PGDATA
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  [ -n "$POSTGRES_PASSWORD" ] || { echo "postgres: set POSTGRES_PASSWORD" >&2; exit 1; }
  printf '%s\n' "$POSTGRES_PASSWORD" >/tmp/pwfile
  # shellcheck disable=SC2086 # the arguments are words
  initdb -U "$POSTGRES_USER" --pwfile=/tmp/pwfile --auth-local=trust --auth-host=scram-sha-256 $POSTGRES_INITDB_ARGS >/dev/null
  : >/tmp/pwfile
  printf 'host all all all scram-sha-256\n' >>"$PGDATA/pg_hba.conf"
  if [ "$POSTGRES_DB" != postgres ]; then
    printf 'CREATE DATABASE "%s" OWNER "%s";\n' "$POSTGRES_DB" "$POSTGRES_USER" |
      postgres --single -D "$PGDATA" -c jit=off postgres >/dev/null
  fi
fi
exec postgres -c listen_addresses='*' -c jit=off "$@"
SH
POSTGRES="localhost/crucible-postgres:$(hash_of $PG_BINS $SH $PG_LIBS "$ENTRY" $(find "$PG/lib" "/usr/share/postgresql/15" -type f | sort))"
if ! exists "$POSTGRES"; then
  R="$WORK/postgres"
  skeleton "$R"
  mkdir -p "$R/bin" "$R$PG/bin" "$R/usr/share/postgresql" "$R/var/lib/postgresql/data" "$R/var/run/postgresql" "$R/usr/share"
  cp "$SH" "$R/bin/sh"
  for b in $PG_BINS; do cp "$b" "$R$b"; done
  cp -a "$PG/lib" "$R$PG/lib"
  rm -f "$R$PG"/lib/llvmjit*
  cp -a /usr/share/postgresql/15 "$R/usr/share/postgresql/15"
  cp -a /usr/share/zoneinfo "$R/usr/share/zoneinfo"
  put "$R" $PG_LIBS
  install -m 0755 "$ENTRY" "$R/usr/local/bin/postgres-entrypoint" 2>/dev/null || {
    mkdir -p "$R/usr/local/bin"
    install -m 0755 "$ENTRY" "$R/usr/local/bin/postgres-entrypoint"
  }
  chown -R 999:999 "$R/var/lib/postgresql" "$R/var/run/postgresql"
  chmod 0700 "$R/var/lib/postgresql/data"
  import "$R" "$POSTGRES" "ENV PATH=$PG/bin:/usr/local/bin:/bin" 'ENV TZ=UTC' 'USER postgres' \
    'ENTRYPOINT ["/usr/local/bin/postgres-entrypoint"]' 'EXPOSE 5432'
fi

# --- the service, from the Dockerfile, on the base above. The build context is the checkout's
# files (tracked and new, .dockerignore's names left out) with node_modules resolved (in a
# worktree it may be a symbolic link, which a build context cannot follow), hard-linked where
# the file system allows.
# .dockerignore's names (top-level names and globs, as that file holds), so that an edit to a
# file the image leaves out (a test, a doc) does not make a new image
mapfile -t IGNORE < <(grep -v '^\s*\(#\|$\)' "$CHECKOUT/.dockerignore" 2>/dev/null || true)
ignored() {
  local top=${1%%/*} pattern
  for pattern in "${IGNORE[@]}"; do
    # shellcheck disable=SC2053 # a glob on purpose
    [[ $top == $pattern ]] && return 0
  done
  return 1
}
(cd "$CHECKOUT" && git ls-files -z --cached --others --exclude-standard |
  while IFS= read -r -d '' f; do [ -f "$f" ] && ! ignored "$f" && printf '%s\0' "$f"; done) >"$WORK/files"
NM=$(readlink -f "$CHECKOUT/node_modules")
# the tag: the base, every file's contents, and node_modules' packages (names and sizes: cheap)
TAG=$( (echo "$BASE"; cd "$CHECKOUT" && xargs -0 -a "$WORK/files" sha256sum;
  cd "$NM" && find -L . -maxdepth 2 -printf '%p %s\n' | sort) | sha256sum | cut -c1-16)
SERVICE="localhost/crucible:$TAG"
if ! exists "$SERVICE"; then
  CTX="$WORK/context"
  mkdir -p "$CTX"
  link=()
  [ "$(stat -c %d "$CHECKOUT")" = "$(stat -c %d "$CTX")" ] && link=(-l)
  (cd "$CHECKOUT" && xargs -0 -a "$WORK/files" cp --parents "${link[@]}" -t "$CTX")
  cp -a "${link[@]}" "$NM" "$CTX/node_modules"
  podman build --quiet --pull=never --network=none --build-arg "BASE=$BASE" -f "$CTX/Dockerfile" -t "$SERVICE" "$CTX" >/dev/null
fi

for ref in "$SERVICE" "$BASE" "$NATS" "$REDIS" "$POSTGRES"; do prune_others "$ref"; done

{
  echo "CRUCIBLE_IMAGE=$SERVICE"
  echo "CRUCIBLE_POSTGRES_IMAGE=$POSTGRES"
  echo "CRUCIBLE_NATS_IMAGE=$NATS"
  echo "CRUCIBLE_REDIS_IMAGE=$REDIS"
  echo "CONTAINERS_CONF=$STATE/containers.conf"
} | tee "$STATE/env"
