#!/usr/bin/env bash
# Starts (idempotently) what the container sandboxes need on a machine without a Docker
# engine or a reachable image registry, and prints the settings to use:
#
#   DOCKER_HOST=unix://<state>/podman.sock
#   CRUCIBLE_RUNTIME_IMAGE=127.0.0.1:<port>/crucible-runtime:<tag>@sha256:<digest>
#
# - podman's Docker-compatible API (`podman system service`) with runc, cgroupfs and
#   default ulimits at or below this machine's (crun refuses cgroup v1 hybrid hosts, and
#   raising RLIMIT_NPROC / RLIMIT_NOFILE is not permitted in some sandboxes);
# - a registry on loopback (Debian's docker-registry), so images get a digest pin;
# - the catalog's runtime image: a root filesystem holding only this machine's Node binary
#   and the shared libraries it links, imported with `podman import` (no network), pushed
#   to the loopback registry. Its tag is a hash of those files, so a second run finds it in
#   the registry (kept in the state folder) and builds nothing.
#
# State folder: $CRUCIBLE_PODMAN_DIR, default ${XDG_CACHE_HOME:-~/.cache}/crucible/podman.
# Registry port: $CRUCIBLE_REGISTRY_PORT, default 5055. Needs root (rootful podman).
# The last lines of output are the two settings above; they are also in <state>/env.
set -euo pipefail

STATE="${CRUCIBLE_PODMAN_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/crucible/podman}"
PORT="${CRUCIBLE_REGISTRY_PORT:-5055}"
REGISTRY="127.0.0.1:$PORT"
SOCK="$STATE/podman.sock"
mkdir -p "$STATE/registry"
exec 9>"$STATE/lock"
flock 9 # two test processes starting at once take turns

for tool in podman runc docker-registry; do
  command -v "$tool" >/dev/null || {
    echo "podman-up: $tool is not installed (apt-get install -y podman runc docker-registry)" >&2
    exit 1
  }
done

nproc_limit=$(ulimit -u)
nofile_limit=$(ulimit -n)
if [ "$nproc_limit" = unlimited ] || [ "$nproc_limit" -gt 1000 ]; then nproc_limit=1000; fi
if [ "$nofile_limit" = unlimited ] || [ "$nofile_limit" -gt 1024 ]; then nofile_limit=1024; fi
cat >"$STATE/containers.conf" <<CONF
[containers]
default_ulimits = ["nproc=$nproc_limit:$nproc_limit", "nofile=$nofile_limit:$nofile_limit"]
[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
CONF
cat >"$STATE/registries.conf" <<CONF
[[registry]]
location = "$REGISTRY"
insecure = true
CONF
cat >"$STATE/registry.yml" <<CONF
version: 0.1
log: { level: error }
storage: { filesystem: { rootdirectory: $STATE/registry } }
http: { addr: $REGISTRY }
CONF
export CONTAINERS_CONF="$STATE/containers.conf" CONTAINERS_REGISTRIES_CONF="$STATE/registries.conf"

answers() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
api_up() { curl -fsS --max-time 2 --unix-socket "$SOCK" http://d/_ping >/dev/null 2>&1; }

if ! api_up; then
  rm -f "$SOCK"
  # from / : the service and every conmon it starts keep this working directory, and one that
  # is removed later (a test's temporary checkout) makes every container start fail with
  # "write child: broken pipe" ("Failed to get working directory" in podman.log)
  (
    cd /
    setsid nohup podman system service --time=0 "unix://$SOCK" >>"$STATE/podman.log" 2>&1 </dev/null 9>&- &
    echo $! >"$STATE/podman.pid"
  )
fi
if ! answers "$PORT"; then
  (
    cd /
    setsid nohup docker-registry serve "$STATE/registry.yml" >>"$STATE/registry.log" 2>&1 </dev/null 9>&- &
    echo $! >"$STATE/registry.pid"
  )
fi
for _ in $(seq 1 100); do
  api_up && answers "$PORT" && break
  sleep 0.1
done
api_up || { echo "podman-up: the podman API did not answer on $SOCK; see $STATE/podman.log" >&2; exit 1; }
answers "$PORT" || { echo "podman-up: the registry did not answer on $REGISTRY; see $STATE/registry.log" >&2; exit 1; }

# The runtime image: Node and the libraries it links, nothing else (no shell, no package manager).
NODE=$(readlink -f "$(command -v node)")
LIBS=$(ldd "$NODE" | grep -o '/[^ ]*' | sort -u)
TAG=$( (sha256sum "$NODE"; for l in $LIBS; do sha256sum "$(readlink -f "$l")"; done; echo v1) | sha256sum | cut -c1-16)
REF="$REGISTRY/crucible-runtime:$TAG"
digest_of_tag() {
  curl -fsS --max-time 5 -o /dev/null -D - \
    -H 'Accept: application/vnd.docker.distribution.manifest.v2+json' \
    -H 'Accept: application/vnd.oci.image.manifest.v1+json' \
    "http://$REGISTRY/v2/crucible-runtime/manifests/$TAG" 2>/dev/null |
    tr -d '\r' | awk -F': ' 'tolower($1)=="docker-content-digest" {print $2}'
}
DIGEST=$(digest_of_tag || true)
if [ -z "$DIGEST" ]; then
  ROOT=$(mktemp -d)
  trap 'rm -rf "$ROOT"' EXIT
  mkdir -p "$ROOT/usr/bin" "$ROOT/tmp" "$ROOT/etc" "$ROOT/app" "$ROOT/data"
  chmod 1777 "$ROOT/tmp"
  cp "$NODE" "$ROOT/usr/bin/node"
  for l in $LIBS; do
    mkdir -p "$ROOT$(dirname "$l")"
    cp -L "$l" "$ROOT$l"
  done
  printf 'root:x:0:0:root:/:/usr/sbin/nologin\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n' >"$ROOT/etc/passwd"
  printf 'root:x:0:\nnogroup:x:65534:\n' >"$ROOT/etc/group"
  tar -C "$ROOT" -cf "$STATE/runtime.tar" .
  podman import --quiet --change 'CMD ["/usr/bin/node"]' --change 'ENV PATH=/usr/bin' \
    "$STATE/runtime.tar" "$REF" >/dev/null
  rm -f "$STATE/runtime.tar"
  podman push --quiet --tls-verify=false --digestfile "$STATE/digest" "$REF" >/dev/null
  DIGEST=$(cat "$STATE/digest")
fi

# The engine holds it under its tag too: the suites pin it by digest, and a pull by digest names
# nothing, while some suites check that an import leaves the operator's tag where it was.
podman image exists "$REF" || podman pull --quiet --tls-verify=false "$REF" >/dev/null

{
  echo "DOCKER_HOST=unix://$SOCK"
  echo "CRUCIBLE_RUNTIME_IMAGE=$REF@$DIGEST"
} | tee "$STATE/env"
