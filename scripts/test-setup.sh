#!/usr/bin/env bash
# What `npm test` needs on this machine, made ready before the suites run (scripts/run-tests.mjs
# calls it first; it is idempotent and quick when everything is up):
#
# - Debian packages: Chromium (the console's browser tests), NATS, Redis and PostgreSQL (their
#   adapters are tested against real servers), python3 (the Python client's suite) and podman
#   with runc, docker-registry, bubblewrap, uidmap, slirp4netns, curl and podman-compose (the
#   container sandboxes), and CNI's dnsname plugin (service names in the compose stack). As
#   root, what is missing is installed (`apt-get update` at most once).
# - Services on loopback: NATS with JetStream (127.0.0.1:4222), Redis (127.0.0.1:6379) and
#   PostgreSQL (127.0.0.1:5432, user postgres). As root, those that are installed but down are
#   started. A PostgreSQL this script installs is set to trust loopback connections, as the
#   PostgreSQL suites connect as `postgres` without a password.
# - podman's Docker-compatible API, a loopback registry and the runtime image, through
#   scripts/podman-up.sh (rootful podman), unless CRUCIBLE_SKIP_CONTAINERS=1 skips the
#   container suites.
#
# Not root and something to install or start: it stops at once with one line naming the command
# to run. Exit status 0 when everything is ready.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/sbin:/usr/sbin:/sbin"

containers=1
[ "${CRUCIBLE_SKIP_CONTAINERS:-}" = 1 ] && containers=0

answers() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
have() { local p; p=$(command -v "$1" 2>/dev/null) && [ -x "$p" ]; }
postgres_installed() { have pg_ctlcluster && compgen -G '/usr/lib/postgresql/*/bin/postgres' >/dev/null; }
as_root='sudo env "PATH=$PATH" npm test'

# the Debian packages whose commands are not here
find_missing() {
  missing=()
  [ -x /usr/bin/chromium ] || missing+=(chromium) # the browser tests launch /usr/bin/chromium
  have nats-server || missing+=(nats-server)
  have redis-server || missing+=(redis-server)
  postgres_installed || missing+=(postgresql)
  have python3 || missing+=(python3)
  if [ "$containers" = 1 ]; then
    for pair in podman:podman runc:runc docker-registry:docker-registry bwrap:bubblewrap newuidmap:uidmap \
      slirp4netns:slirp4netns curl:curl podman-compose:podman-compose; do
      have "${pair%%:*}" || missing+=("${pair#*:}")
    done
    # podman's CNI networks resolve service names only with this plugin (the compose stack's test)
    [ -x /usr/lib/cni/dnsname ] || missing+=(golang-github-containernetworking-plugin-dnsname)
  fi
}
find_missing

down=()
answers 4222 || down+=(NATS)
answers 6379 || down+=(Redis)
answers 5432 || down+=(PostgreSQL)

if [ "$(id -u)" != 0 ]; then
  if [ ${#missing[@]} -gt 0 ] || [ ${#down[@]} -gt 0 ]; then
    line='test-setup: '
    [ ${#missing[@]} -eq 0 ] || line+="not installed: ${missing[*]}; "
    [ ${#down[@]} -eq 0 ] || line+="not running: ${down[*]}; "
    echo "${line}installing and starting them needs root, run: $as_root" >&2
    exit 1
  fi
fi

fresh_postgres=0
if [ ${#missing[@]} -gt 0 ]; then
  echo "test-setup: installing ${missing[*]}"
  postgres_installed || fresh_postgres=1
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  browser=() others=()
  for p in "${missing[@]}"; do
    if [ "$p" = chromium ]; then browser+=("$p"); else others+=("$p"); fi
  done
  # Chromium without its recommends (fonts and desktop integration the tests do not need)
  [ ${#browser[@]} -eq 0 ] || apt-get install -y -qq --no-install-recommends "${browser[@]}"
  [ ${#others[@]} -eq 0 ] || apt-get install -y -qq "${others[@]}"
  find_missing
  if [ ${#missing[@]} -gt 0 ]; then
    echo "test-setup: apt-get installed, yet still missing: ${missing[*]}" >&2
    exit 1
  fi
fi

pg_version=$(ls /etc/postgresql 2>/dev/null | sort -V | tail -n 1)
[ -n "$pg_version" ] && [ -d "/etc/postgresql/$pg_version/main" ] || {
  echo "test-setup: PostgreSQL is installed without a cluster named main (pg_lsclusters); make one with: pg_createcluster --start $(ls /usr/lib/postgresql | sort -V | tail -n 1) main" >&2
  exit 1
}
if [ "$fresh_postgres" = 1 ]; then
  # a cluster made just now by the package: let loopback connections in as any role without a
  # password (Debian's default asks for one), as on the machines this project is developed on
  hba="/etc/postgresql/$pg_version/main/pg_hba.conf"
  sed -i '1i host all all 127.0.0.1/32 trust\nhost all all ::1/128 trust' "$hba"
fi

if ! answers 4222; then
  echo "test-setup: starting NATS (JetStream) on 127.0.0.1:4222"
  mkdir -p /var/lib/nats-server
  start-stop-daemon --start --oknodo --background --exec "$(command -v nats-server)" -- \
    -a 127.0.0.1 -p 4222 -js -sd /var/lib/nats-server -l /var/log/nats-server.log
fi
if ! answers 6379; then
  echo "test-setup: starting Redis on 127.0.0.1:6379"
  mkdir -p /var/lib/redis /var/log/redis
  redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
    --dir /var/lib/redis --logfile /var/log/redis/ci.log
fi
if ! answers 5432; then
  echo "test-setup: starting PostgreSQL $pg_version on 127.0.0.1:5432"
  pg_ctlcluster --skip-systemctl-redirect "$pg_version" main start
elif [ "$fresh_postgres" = 1 ]; then
  pg_ctlcluster --skip-systemctl-redirect "$pg_version" main reload
fi
for _ in $(seq 1 100); do
  answers 4222 && answers 6379 && answers 5432 && break
  sleep 0.1
done
answers 4222 || { echo "test-setup: NATS did not answer on 127.0.0.1:4222; see /var/log/nats-server.log" >&2; exit 1; }
answers 6379 || { echo "test-setup: Redis did not answer on 127.0.0.1:6379; see /var/log/redis/ci.log" >&2; exit 1; }
answers 5432 || {
  echo "test-setup: PostgreSQL did not answer on 127.0.0.1:5432; see /var/log/postgresql/postgresql-$pg_version-main.log" >&2
  exit 1
}
if have psql && ! PGCONNECT_TIMEOUT=5 psql -w -h 127.0.0.1 -U postgres -d postgres -Atqc 'select 1' >/dev/null 2>&1; then
  echo "test-setup: note: PostgreSQL on 127.0.0.1:5432 refuses user postgres without a password, so the PostgreSQL suites will fail; add 'host all all 127.0.0.1/32 trust' to /etc/postgresql/$pg_version/main/pg_hba.conf and reload" >&2
fi

if [ "$containers" = 1 ]; then
  if ! scripts/podman-up.sh >/dev/null; then
    if [ "$(id -u)" != 0 ]; then
      echo "test-setup: the container suites need rootful podman (scripts/podman-up.sh failed above), run: $as_root" >&2
    fi
    exit 1
  fi
  echo "test-setup: ready: NATS, Redis, PostgreSQL, Chromium, podman's API and registry (scripts/podman-up.sh)"
else
  echo "test-setup: ready: NATS, Redis, PostgreSQL, Chromium (CRUCIBLE_SKIP_CONTAINERS=1: no podman)"
fi
