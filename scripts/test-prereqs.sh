#!/usr/bin/env bash
# Make sure what the test suite talks to is there: PostgreSQL, Redis and
# Debian's Chromium (for the Playwright browser tests). Under CI=true a missing
# piece that cannot be started or installed is an error, never a skip.
set -euo pipefail

log() { echo "[test-prereqs] $*"; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else return 1; fi; }

if ! command -v pg_isready >/dev/null || ! pg_isready -q -h 127.0.0.1 -p 5432; then
  log "PostgreSQL is not answering; starting it"
  if ls /etc/postgresql >/dev/null 2>&1; then
    as_root pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -1)" main start || true
  fi
  for _ in $(seq 1 30); do pg_isready -q -h 127.0.0.1 -p 5432 && break; sleep 1; done
fi
if ! redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then
  log "Redis is not answering; starting it"
  as_root mkdir -p /var/lib/redis /var/log/redis || true
  as_root redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
    --dir /var/lib/redis --logfile /var/log/redis/ci.log || true
  for _ in $(seq 1 30); do redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1 && break; sleep 1; done
fi
if [ ! -x /usr/bin/chromium ]; then
  log "installing Debian's chromium for the browser tests"
  as_root apt-get update -qq || true
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null || true
fi

if [ "${CI:-}" = "true" ]; then
  pg_isready -q -h 127.0.0.1 -p 5432 || { log "PostgreSQL is down and could not be started"; exit 1; }
  redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null || { log "Redis is down and could not be started"; exit 1; }
  [ -x /usr/bin/chromium ] || { log "chromium could not be installed"; exit 1; }
fi
log "ready"
