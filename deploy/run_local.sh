#!/usr/bin/env bash
# N replicas of the app and nginx in front of them, all on loopback, with deploy/nginx/mha.conf as it is:
#   deploy/run_local.sh [REPLICAS] [PROXY_PORT]        # default 2 replicas, http://127.0.0.1:8080
# Replicas listen on 127.0.0.1:$MHA_REPLICA_PORT (default 8601), +1, ...; logs, pid files and nginx's own files go to
# $MHA_RUN_DIR (default: a new temporary folder). Runs in the foreground; Ctrl-C (or SIGTERM) stops everything it
# started. Needs nginx (Debian: apt-get install nginx) and the app's requirements.
set -euo pipefail
cd "$(dirname "$0")/.."
REPLICAS="${1:-2}"
PROXY_PORT="${2:-8080}"
FIRST_PORT="${MHA_REPLICA_PORT:-8601}"
RUN="${MHA_RUN_DIR:-$(mktemp -d -t mha-replicas.XXXXXX)}"
PY="${PYTHON:-python3}"
NGINX="${NGINX:-$(command -v nginx || echo /usr/sbin/nginx)}"
mkdir -p "$RUN/tmp"
[ -x "$NGINX" ] || { echo "run_local: nginx not found (Debian: apt-get install nginx)" >&2; exit 2; }

pids=()
stop() {
  trap - EXIT INT TERM
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
}
trap stop EXIT
trap 'exit 0' INT TERM

healthy() {  # PORT: wait until the replica on PORT answers "ok" on /_stcore/health (90 s at most)
  "$PY" - "$1" <<'PYEOF'
import sys, time, urllib.request
url = f"http://127.0.0.1:{sys.argv[1]}/_stcore/health"
deadline = time.monotonic() + 90
while time.monotonic() < deadline:
    try:
        with urllib.request.urlopen(url, timeout=2) as r:
            if r.read().strip() == b"ok":
                sys.exit(0)
    except OSError:
        time.sleep(0.3)
sys.exit(f"run_local: no healthy replica at {url} after 90 s")
PYEOF
}

: > "$RUN/mha-replicas.conf"
for i in $(seq 1 "$REPLICAS"); do
  port=$((FIRST_PORT + i - 1))
  # as the Dockerfile: streamlit run app.py with the upload limit set before the server starts (docs/deploy.md)
  "$PY" -m mha.app.serve --server.port="$port" --server.address=127.0.0.1 >"$RUN/replica-$i.log" 2>&1 &
  pids+=($!)
  echo $! >"$RUN/replica-$i.pid"
  echo "server 127.0.0.1:$port max_fails=1 fail_timeout=10s;" >>"$RUN/mha-replicas.conf"
done
for i in $(seq 1 "$REPLICAS"); do healthy $((FIRST_PORT + i - 1)); done

# deploy/nginx/mha.conf unchanged but for its listen line; nginx's own files in $RUN.
sed "s/^\(\s*\)listen 8080;/\1listen 127.0.0.1:$PROXY_PORT;/" deploy/nginx/mha.conf >"$RUN/mha.conf"
user=""
if [ "$(id -u)" = 0 ]; then  # workers of a root master run as nobody: let them write their temporary files
  user="user nobody nogroup;"
  chmod 755 "$RUN"
  chown nobody "$RUN/tmp"
fi
cat >"$RUN/nginx.conf" <<NGINXEOF
$user
worker_processes 1;
pid $RUN/nginx.pid;
error_log $RUN/nginx-error.log warn;
events { worker_connections 1024; }
http {
    # which replica answered each request (tests/deploy reads it: sessions stick)
    log_format mha '\$upstream_addr \$mha_sticky \$request_method \$uri \$status';
    access_log $RUN/nginx-access.log mha;
    client_body_temp_path $RUN/tmp/body;
    proxy_temp_path $RUN/tmp/proxy;
    fastcgi_temp_path $RUN/tmp/fastcgi;
    uwsgi_temp_path $RUN/tmp/uwsgi;
    scgi_temp_path $RUN/tmp/scgi;
    include $RUN/mha.conf;
}
NGINXEOF
"$NGINX" -t -q -p "$RUN" -c "$RUN/nginx.conf"
"$NGINX" -p "$RUN" -c "$RUN/nginx.conf" -g "daemon off;" &
pids+=($!)
echo $! >"$RUN/nginx.pid.run"
healthy "$PROXY_PORT"
echo "run_local: $REPLICAS replicas behind nginx at http://127.0.0.1:$PROXY_PORT (files in $RUN)"
echo "ready" >"$RUN/ready"
wait -n "${pids[@]}" || true  # the first process to end (a replica killed, nginx stopped) ...
wait  # ... and the rest keep serving until Ctrl-C
