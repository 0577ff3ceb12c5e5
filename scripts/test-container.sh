#!/usr/bin/env bash
# npm run test:container: builds svir's image from this checkout with docker or podman (whichever
# is present; neither: says so and exits 0) and checks that the image runs and serves, against a
# fake OpenAI-compatible backend that this script starts on the host:
#   /healthz, /v1/models with and without the key, a streamed answer from the host backend, the
#   non-root user, the healthcheck, `--version` and `check` through the entrypoint, a reload after
#   an editor-style (replacing) edit of the mounted config folder, and a stop with a stream open
#   that exits 0 within the engine's default stop timeout (10 s).
# Then compose.cluster.yaml (README, "Several replicas"), when a compose and its Valkey and nginx
# images are present (else "skipped: ..."): two replicas of this build, the shipped
# config/cluster.yaml with the fake backend, through nginx on 127.0.0.1:4000: readiness with
# Redis, a Responses chain across the replicas (which replica answered: its log has the
# request's x-request-id), GET/DELETE through both, maxConcurrent held across both (the fake
# counts its open requests), Valkey stopped and started again, the replicas recreated, down.
# Prints PASS/FAIL lines and a summary; exits 0 only when nothing failed.
#
# Needs: node and curl on the host; docker (its daemon running) or podman. The base image
# (node:26-slim) must be pullable or already present: where no registry is reachable, make a
# local image of that name first (podman import of a Debian root with Node 26 works). The
# cluster part: `docker compose`, or docker-compose (with podman: against `podman system
# service`, which the script starts on a socket of its own), valkey/valkey:8-alpine and
# nginx:1.27-alpine present (never pulled here), and host port 4000 free.
#
# Where podman's defaults do not work (a sandbox that refuses its rlimits, crun on a hybrid
# cgroup layout), the script retries with a containers.conf of its own (CONTAINERS_CONF, for its
# own calls only). An npm registry CA of this machine (`npm config get cafile`, or
# NODE_EXTRA_CA_CERTS) is mounted for the build's RUN steps with podman (docker build cannot
# mount), never copied into the image. Podman builds with --format docker (OCI images drop the
# HEALTHCHECK); an old podman that refuses --add-host=...:host-gateway gets its bridge's gateway.
#
# Environment (optional): SVIR_CONTAINER_ENGINE=docker|podman, SVIR_CT_PORT (host port for the
# container, default 14100), SVIR_CT_KEEP=1 (keep the image and the scratch folder),
# SVIR_CT_CLUSTER=0 (skip the compose.cluster.yaml part).
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
IMAGE=localhost/svir-test-container:latest
CONTAINER=svir-test-container
BASE=docker.io/library/node:26-slim
PORT=${SVIR_CT_PORT:-14100}
KEY=ct-$(node -e 'process.stdout.write(require("node:crypto").randomBytes(16).toString("hex"))' 2>/dev/null || echo "$RANDOM$RANDOM$RANDOM")
WORK=$(mktemp -d -t svir-test-container.XXXXXX)
FAKE_PID=
SVC_PID=
CLUSTER_UP=
DC=()
passes=0
fails=0

pass() { passes=$((passes + 1)); printf 'PASS  %s\n' "$*"; }
fail() { fails=$((fails + 1)); printf 'FAIL  %s\n' "$*"; }
info() { printf '      %s\n' "$*"; }
step() { printf '\n== %s\n' "$*"; }
summary() {
  step "summary ($ENGINE)"
  echo "$passes passed, $fails failed"
}
abort() { printf 'ABORT %s\n' "$*"; fails=$((fails + 1)); summary; exit 1; }

# ---------------------------------------------------------------------------------------------
ENGINE=${SVIR_CONTAINER_ENGINE:-}
skip() {
  echo "test:container skipped: $* (nothing was built or run)."
  rm -rf "$WORK"
  exit 0
}
if [ -z "$ENGINE" ]; then
  # docker only when its daemon answers (a docker CLI alone cannot build or run anything).
  if command -v docker >/dev/null 2>&1 && docker info >/dev/null 2>&1; then ENGINE=docker
  elif command -v podman >/dev/null 2>&1; then ENGINE=podman
  elif command -v docker >/dev/null 2>&1; then skip "docker is installed but its daemon does not answer, and podman is not installed"
  else skip "neither docker nor podman is installed"
  fi
fi
command -v node >/dev/null 2>&1 || abort "node is needed on the host (the fake backend)"
command -v curl >/dev/null 2>&1 || abort "curl is needed on the host"

# podman without systemd logs two lines per run of an image with a HEALTHCHECK: dropped here.
quiet() { grep -v 'unable to get systemd connection' || true; }
en() { "$ENGINE" "$@"; }

cleanup() {
  en rm -f "$CONTAINER" >/dev/null 2>&1
  [ -n "$CLUSTER_UP" ] && "${DC[@]}" down >/dev/null 2>&1
  if [ -n "$SVC_PID" ]; then kill "$SVC_PID" 2>/dev/null; wait "$SVC_PID" 2>/dev/null; fi
  if [ -n "$FAKE_PID" ]; then kill "$FAKE_PID" 2>/dev/null; wait "$FAKE_PID" 2>/dev/null; fi
  if [ "${SVIR_CT_KEEP:-0}" = 1 ]; then
    echo "kept: image $IMAGE, scratch folder $WORK"
  else
    en rmi -f "$IMAGE" >/dev/null 2>&1
    rm -rf "$WORK"
  fi
}
trap cleanup EXIT

step "engine"
info "$(en --version 2>&1 | head -1); host node $(node --version)"

# ---------------------------------------------------------------------------------------------
step "base image $BASE"
if en image inspect "$BASE" >/dev/null 2>&1; then
  info "present: $(en image inspect --format '{{.Id}} {{.Created}}' "$BASE" 2>/dev/null | cut -c1-80)"
elif en pull "$BASE" >"$WORK/pull.log" 2>&1; then
  info "pulled"
else
  abort "$BASE is not present and cannot be pulled ($(tail -1 "$WORK/pull.log")): make it available locally and rerun"
fi

if [ "$ENGINE" = podman ]; then
  if ! out=$(podman run --rm --pull=never "$BASE" true 2>&1); then
    info "podman's defaults do not run a container here: $(echo "$out" | quiet | tail -1)"
    nofile=$(ulimit -Hn); nproc=$(ulimit -Hu)
    [ "$nofile" = unlimited ] && nofile=1048576
    { [ "$nproc" = unlimited ] || [ "$nproc" -gt 32768 ]; } && nproc=32768
    runtime=$(podman info --format '{{.Host.OCIRuntime.Name}}' 2>/dev/null)
    command -v runc >/dev/null 2>&1 && runtime=runc
    printf '[containers]\ndefault_ulimits = ["nofile=%s:%s", "nproc=%s:%s"]\n[engine]\nruntime = "%s"\n' \
      "$nofile" "$nofile" "$nproc" "$nproc" "$runtime" > "$WORK/containers.conf"
    export CONTAINERS_CONF=$WORK/containers.conf
    info "retrying with CONTAINERS_CONF: $(tr '\n' ' ' < "$WORK/containers.conf")"
    out=$(podman run --rm --pull=never "$BASE" true 2>&1) \
      || abort "podman cannot run a container here: $(echo "$out" | quiet | tail -1) (rootless podman may need root)"
  fi
fi

# ---------------------------------------------------------------------------------------------
step "build"
build=(build --pull=never --network=host -t "$IMAGE")
if [ "$ENGINE" = podman ]; then
  build+=(--format docker)
  # npm ci in the build needs this machine's registry (and its CA where TLS is intercepted): a
  # generated npmrc (registry and cafile only, never a token) and the CA, over the base's empty
  # /usr/local/etc, for RUN steps only.
  registry=$(npm config get registry 2>/dev/null)
  cafile=$(npm config get cafile 2>/dev/null)
  { [ "$cafile" = undefined ] || [ "$cafile" = null ]; } && cafile=
  [ -z "$cafile" ] && [ -n "${NODE_EXTRA_CA_CERTS:-}" ] && cafile=$NODE_EXTRA_CA_CERTS
  mkdir -p "$WORK/npm-etc"
  { [ -n "$registry" ] && echo "registry=$registry"; [ -n "$cafile" ] && echo "cafile=/usr/local/etc/build-ca.pem"; } > "$WORK/npm-etc/npmrc"
  [ -n "$cafile" ] && cp "$cafile" "$WORK/npm-etc/build-ca.pem"
  build+=(-v "$WORK/npm-etc:/usr/local/etc:ro")
fi
dangling_before=$(en images -q --filter dangling=true | sort)
t0=$(date +%s)
if en "${build[@]}" "$ROOT" >"$WORK/build.log" 2>&1; then
  pass "image built in $(( $(date +%s) - t0 )) s: $(en image inspect --format '{{.Size}}' "$IMAGE" | awk '{printf "%d MB", $1 / 1000000}')"
else
  tail -20 "$WORK/build.log" | sed 's/^/      | /'
  abort "the build failed"
fi
# The build stage stays behind as an untagged image (about 1 GB): remove the ones this build made.
for id in $(comm -13 <(echo "$dangling_before") <(en images -q --filter dangling=true | sort)); do
  en rmi -f "$id" >/dev/null 2>&1
done
user=$(en image inspect --format '{{.Config.User}}' "$IMAGE")
{ [ -n "$user" ] && [ "$user" != root ] && [ "$user" != 0 ]; } && pass "image USER is $user" || fail "image USER is '$user'"
hc=$(en image inspect --format '{{json .Config.Healthcheck}}' "$IMAGE")
{ [ -n "$hc" ] && [ "$hc" != null ]; } && pass "image carries a HEALTHCHECK" || fail "image has no HEALTHCHECK"
info "Entrypoint $(en image inspect --format '{{json .Config.Entrypoint}}' "$IMAGE")  Cmd $(en image inspect --format '{{json .Config.Cmd}}' "$IMAGE")"
version=$(node -p "require('$ROOT/package.json').version")
out=$(en run --rm --pull=never "$IMAGE" --version 2>&1 | quiet | tail -1)
[ "$out" = "$version" ] && pass "docker run IMAGE --version reaches svir: $out" || fail "docker run IMAGE --version: '$out' (want $version)"

# ---------------------------------------------------------------------------------------------
step "fake backend on the host"
cat > "$WORK/fake-backend.mjs" <<'EOF'
// An OpenAI-compatible backend: GET /v1/models, and a streamed chat (svir always asks for a
// stream). Model ct-slow sends one chunk a second for a minute (a stream open at stop time);
// ct-wait one chunk every 250 ms for 3 s (the cluster part's concurrent streams); ct-echo answers
// "heard <last user text> (<n> messages)" (a Responses chain: what the backend was sent).
// GET /stats: the chat requests open now, the most open at once, and the same per client address
// (each svir replica connects from its own).
import http from 'node:http';
const stats = { open: 0, max: 0, total: 0, from: {} };
const chunk = (model, delta, finish = null) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-ct', object: 'chat.completion.chunk', created: 1700000000, model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
function ticks(res, model, count, ms) {
  let n = 0;
  const timer = setInterval(() => {
    n += 1;
    if (n > count) { clearInterval(timer); res.write(chunk(model, {}, 'stop')); res.end('data: [DONE]\n\n'); return; }
    res.write(chunk(model, { content: `tick ${n} ` }));
  }, ms);
  res.on('close', () => clearInterval(timer));
}
const server = http.createServer((req, res) => {
  let body = '';
  req.on('data', (d) => (body += d));
  req.on('end', () => {
    if (req.method === 'GET' && req.url === '/stats') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(stats));
      return;
    }
    if (req.method === 'POST' && req.url === '/stats/reset') {
      Object.assign(stats, { max: stats.open, total: 0, from: {} });
      res.writeHead(204);
      res.end();
      return;
    }
    if (req.method === 'GET' && req.url === '/v1/models') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data: ['ct-model', 'ct-slow', 'ct-wait', 'ct-echo'].map((id) => ({ id, object: 'model', created: 1700000000, owned_by: 'ct' })) }));
      return;
    }
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"error":{"message":"not found"}}');
      return;
    }
    const { model, messages = [] } = JSON.parse(body);
    const from = req.socket.remoteAddress.replace(/^::ffff:/, '');
    stats.open += 1;
    stats.total += 1;
    stats.max = Math.max(stats.max, stats.open);
    const mine = (stats.from[from] ??= { open: 0, max: 0, total: 0 });
    mine.open += 1;
    mine.total += 1;
    mine.max = Math.max(mine.max, mine.open);
    res.on('close', () => {
      stats.open -= 1;
      mine.open -= 1;
    });
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(chunk(model, { role: 'assistant', content: '' }));
    if (model === 'ct-slow') return ticks(res, model, 60, 1000);
    if (model === 'ct-wait') return ticks(res, model, 12, 250);
    let words = ['Hello', ' from', ' the', ' host.'];
    if (model === 'ct-echo') {
      const last = [...messages].reverse().find((m) => m.role === 'user');
      const text = typeof last?.content === 'string' ? last.content : (last?.content ?? []).map((p) => p.text ?? '').join('');
      words = [`heard ${text} (${messages.length} messages)`];
    }
    for (const word of words) res.write(chunk(model, { content: word }));
    res.write(chunk(model, {}, 'stop'));
    res.end('data: [DONE]\n\n');
  });
});
server.listen(0, '0.0.0.0', () => process.stdout.write(`listening ${server.address().port}\n`));
process.on('SIGTERM', () => process.exit(0));
EOF
node "$WORK/fake-backend.mjs" >"$WORK/fake.log" 2>&1 &
FAKE_PID=$!
for _ in $(seq 1 40); do grep -q '^listening' "$WORK/fake.log" && break; sleep 0.25; done
FAKE_PORT=$(sed -n 's/^listening //p' "$WORK/fake.log")
[ -n "$FAKE_PORT" ] || abort "the fake backend did not start: $(cat "$WORK/fake.log")"
info "listening on 0.0.0.0:$FAKE_PORT"

# The image's own config/docker.yaml (its server section: host, port, shutdown grace) with this
# backend in place of the shipped ones, in a folder mounted as the README says.
mkdir -p "$WORK/config"
node -e '
  const yaml = require(process.argv[1] + "/node_modules/yaml");
  const fs = require("node:fs");
  const config = yaml.parse(fs.readFileSync(process.argv[1] + "/config/docker.yaml", "utf8"));
  config.backends = [{ name: "host", type: "openai", url: `http://host.docker.internal:${process.argv[2]}/v1` }];
  fs.writeFileSync(process.argv[3], yaml.stringify(config));
' "$ROOT" "$FAKE_PORT" "$WORK/config/svir.yaml" || abort "cannot write the test config"
grace=$(node -e 'console.log(require(process.argv[1] + "/node_modules/yaml").parse(require("node:fs").readFileSync(process.argv[2], "utf8")).server.shutdownGraceMs ?? 10000)' "$ROOT" "$WORK/config/svir.yaml")
info "config: backend http://host.docker.internal:$FAKE_PORT/v1, server.shutdownGraceMs $grace"

# ---------------------------------------------------------------------------------------------
step "run"
run_args=(-d --name "$CONTAINER" --pull=never -p "127.0.0.1:$PORT:4000" -e "SVIR_API_KEYS=$KEY"
  -v "$WORK/config:/etc/svir:ro" -e SVIR_CONFIG=/etc/svir/svir.yaml)
# docker runs the first healthcheck only after the image's 30 s interval: ask sooner here.
[ "$ENGINE" = docker ] && run_args+=(--health-interval=2s)
en rm -f "$CONTAINER" >/dev/null 2>&1
addhost=host.docker.internal:host-gateway
if ! en run "${run_args[@]}" --add-host="$addhost" "$IMAGE" >/dev/null 2>"$WORK/run.err"; then
  # podman 4.3 does not know host-gateway: the bridge's gateway is what it means.
  en rm -f "$CONTAINER" >/dev/null 2>&1
  gw=$(podman network inspect podman --format '{{range .Subnets}}{{.Gateway}}{{end}}' 2>/dev/null)
  [ -n "$gw" ] || abort "run failed: $(quiet < "$WORK/run.err")"
  addhost=host.docker.internal:$gw
  en run "${run_args[@]}" --add-host="$addhost" "$IMAGE" >/dev/null 2>"$WORK/run.err" || abort "run failed: $(quiet < "$WORK/run.err")"
fi
info "--add-host=$addhost"
U=http://127.0.0.1:$PORT
up=
for _ in $(seq 1 80); do
  [ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "$U/healthz")" = 200 ] && { up=1; break; }
  sleep 0.5
done
[ -n "$up" ] && pass "GET /healthz: 200" || { en logs "$CONTAINER" 2>&1 | tail -10 | sed 's/^/      | /'; abort "/healthz never answered"; }

status=$(curl -s -o "$WORK/models.json" -w '%{http_code}' --max-time 20 "$U/v1/models")
[ "$status" = 401 ] && pass "GET /v1/models without the key: 401" || fail "GET /v1/models without the key: $status"
status=$(curl -s -o "$WORK/models.json" -w '%{http_code}' --max-time 20 -H "Authorization: Bearer $KEY" "$U/v1/models")
{ [ "$status" = 200 ] && grep -q '"ct-model"' "$WORK/models.json"; } && pass "GET /v1/models with the key lists the host backend's models" \
  || fail "GET /v1/models with the key: $status $(head -c 300 "$WORK/models.json")"

curl -sS -N --max-time 30 -H "Authorization: Bearer $KEY" -H 'content-type: application/json' \
  -d '{"model":"ct-model","stream":true,"messages":[{"role":"user","content":"hi"}]}' "$U/v1/chat/completions" >"$WORK/stream.txt" 2>&1
text=$(sed -n 's/^data: //p' "$WORK/stream.txt" | grep -v '^\[DONE\]' | node -e '
  let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () => {
    let t = ""; for (const l of s.split("\n")) if (l) t += JSON.parse(l).choices?.[0]?.delta?.content ?? "";
    process.stdout.write(t);
  });' 2>&1)
{ grep -q '^data: \[DONE\]' "$WORK/stream.txt" && [ "$text" = "Hello from the host." ]; } \
  && pass "streamed chat from the host backend: \"$text\" then [DONE]" || fail "streamed chat: '$text' $(tail -c 300 "$WORK/stream.txt")"

uid=$(en exec "$CONTAINER" id -u 2>&1 | quiet)
{ [ -n "$uid" ] && [ "$uid" != 0 ]; } && pass "svir runs as a non-root user: $(en exec "$CONTAINER" id 2>&1 | quiet)" || fail "svir runs as uid '$uid'"
pid1=$(en exec "$CONTAINER" sh -c 'tr "\0" " " < /proc/1/cmdline' 2>&1 | quiet)
[[ $pid1 == node\ dist/cli.js* ]] && pass "PID 1 is svir itself: $pid1" || fail "PID 1 is: $pid1"

if [ "$ENGINE" = podman ]; then
  out=$(podman healthcheck run "$CONTAINER" 2>&1); rc=$?
  [ $rc = 0 ] && pass "healthcheck passes (podman healthcheck run)" || fail "healthcheck: exit $rc $(echo "$out" | quiet)"
else
  health=
  for _ in $(seq 1 60); do
    health=$(docker inspect --format '{{.State.Health.Status}}' "$CONTAINER" 2>/dev/null)
    [ "$health" = healthy ] && break
    sleep 1
  done
  [ "$health" = healthy ] && pass "healthcheck passes: healthy" || fail "healthcheck: $health"
fi

out=$(en exec "$CONTAINER" node dist/cli.js check --timeout 20 2>&1 | quiet); rc=$?
info "svir check inside the container: exit $rc"
echo "$out" | head -6 | sed 's/^/      | /'
out=$(en run --rm --pull=never --add-host="$addhost" -v "$WORK/config:/etc/svir:ro" -e SVIR_CONFIG=/etc/svir/svir.yaml \
  "$IMAGE" check --timeout 20 2>&1 | quiet); rc=$?
{ [ $rc = 0 ] && echo "$out" | grep -q 'host'; } && pass "docker run IMAGE check reaches svir check: exit 0" \
  || { fail "docker run IMAGE check: exit $rc"; echo "$out" | head -8 | sed 's/^/      | /'; }

# An editor's save replaces the file (sed -i does too): with the folder mounted, a reload sees it.
sed -i 's/name: host$/name: host-edited/' "$WORK/config/svir.yaml"
en kill --signal HUP "$CONTAINER" >/dev/null 2>&1
reloaded=
for _ in $(seq 1 20); do
  reloaded=$(en logs "$CONTAINER" 2>&1 | grep -o '"msg":"config reloaded[^"]*"' | tail -1)
  [[ $reloaded == *host-edited* ]] && break
  sleep 0.25
done
[[ $reloaded == *host-edited* ]] && pass "reload after a replacing edit of the mounted folder: $reloaded" || fail "reload after a replacing edit: '$reloaded'"

# ---------------------------------------------------------------------------------------------
step "stop with a stream open (the engine's default timeout: 10 s, then SIGKILL)"
curl -sS -N --max-time 60 -H "Authorization: Bearer $KEY" -H 'content-type: application/json' \
  -d '{"model":"ct-slow","stream":true,"messages":[{"role":"user","content":"hi"}]}' "$U/v1/chat/completions" >"$WORK/slow.txt" 2>&1 &
client=$!
sleep 3
t0=$(date +%s.%N)
en stop "$CONTAINER" >/dev/null 2>&1
t1=$(date +%s.%N)
wait "$client"; crc=$?
secs=$(awk "BEGIN{printf \"%.1f\", $t1 - $t0}")
ec=$(en inspect --format '{{.State.ExitCode}}' "$CONTAINER")
info "stop took $secs s, exit code $ec; the client (curl exit $crc) got at the end:"
grep -v '^$' "$WORK/slow.txt" | tail -1 | cut -c1-200 | sed 's/^/      | /'
{ [ "$ec" = 0 ] && awk "BEGIN{exit !($secs < 10)}"; } && pass "stop with a stream open: exit 0 in $secs s (grace ${grace} ms, engine timeout 10 s)" \
  || fail "stop with a stream open: exit $ec in $secs s"
grep -q 'shutting down' "$WORK/slow.txt" && pass "the open stream ended with svir's shutdown error event" || fail "the open stream did not get the shutdown error event"

# ---------------------------------------------------------------------------------------------
# compose.cluster.yaml (README, "Several replicas"): two replicas of this build, the Valkey and
# nginx images it names, and the fake backend above with the shipped config/cluster.yaml's
# maxConcurrent. Runs when a compose (docker compose, or docker-compose, with podman through its
# Docker API) and both images are present; says "skipped: ..." otherwise.
step "compose.cluster.yaml: two replicas, Valkey, nginx"
CLUSTER_SKIP=
CLUSTER_IMAGES=(valkey/valkey:8-alpine nginx:1.27-alpine)
if [ "${SVIR_CT_CLUSTER:-1}" = 0 ]; then CLUSTER_SKIP="SVIR_CT_CLUSTER=0"
elif [ "$ENGINE" = docker ] && docker compose version >/dev/null 2>&1; then DC=(docker compose)
elif command -v docker-compose >/dev/null 2>&1; then DC=(docker-compose)
else CLUSTER_SKIP="neither docker compose nor docker-compose is installed"
fi
if [ -z "$CLUSTER_SKIP" ]; then
  for image in "${CLUSTER_IMAGES[@]}"; do
    en image inspect "$image" >/dev/null 2>&1 || CLUSTER_SKIP="$CLUSTER_SKIP${CLUSTER_SKIP:+, }$image is not present"
  done
  [ -n "$CLUSTER_SKIP" ] && CLUSTER_SKIP="$CLUSTER_SKIP ($ENGINE pull ${CLUSTER_IMAGES[*]}, then rerun)"
fi
if [ -z "$CLUSTER_SKIP" ] && (exec 3<>/dev/tcp/127.0.0.1/4000) 2>/dev/null; then
  CLUSTER_SKIP="host port 4000 (compose.cluster.yaml publishes 127.0.0.1:4000) is taken"
fi

if [ -n "$CLUSTER_SKIP" ]; then
  echo "skipped: compose.cluster.yaml: $CLUSTER_SKIP."
else
  if [ "$ENGINE" = podman ]; then
    # docker-compose talks to podman's Docker API, on a socket of this run's own.
    podman system service --time=0 "unix://$WORK/podman.sock" >"$WORK/podman-service.log" 2>&1 &
    SVC_PID=$!
    for _ in $(seq 1 40); do [ -S "$WORK/podman.sock" ] && break; sleep 0.25; done
    export DOCKER_HOST=unix://$WORK/podman.sock
  fi
  export SVIR_API_KEYS=$KEY
  # The shipped config/cluster.yaml (server, cluster, the first backend's maxConcurrent) with the
  # fake backend in place of the shipped ones, in a folder mounted where ./config would be.
  mkdir -p "$WORK/cluster-config"
  MAXC=$(node -e '
    const yaml = require(process.argv[1] + "/node_modules/yaml");
    const fs = require("node:fs");
    const config = yaml.parse(fs.readFileSync(process.argv[1] + "/config/cluster.yaml", "utf8"));
    const maxConcurrent = config.backends[0].maxConcurrent;
    config.backends = [{ name: "host", type: "openai", url: `http://host.docker.internal:${process.argv[2]}/v1`, maxConcurrent }];
    fs.writeFileSync(process.argv[3], yaml.stringify(config));
    process.stdout.write(String(maxConcurrent));
  ' "$ROOT" "$FAKE_PORT" "$WORK/cluster-config/cluster.yaml") || abort "cannot write the cluster config"
  # This build in place of svir:latest (nothing is built or tagged by compose), the config above.
  # podman 4.3's Docker API writes "host-gateway" literally into /etc/hosts: there, the network's
  # gateway (what host-gateway means) is written in instead, after a first `up`.
  write_override() { # [GATEWAY]
    {
      echo 'services:'
      for r in svir-a svir-b; do
        printf '  %s:\n    image: %s\n    volumes:\n      - %s:/etc/svir:ro\n' "$r" "$IMAGE" "$WORK/cluster-config"
        [ -n "${1:-}" ] && printf '    extra_hosts:\n      - "host.docker.internal:%s"\n' "$1"
      done
    } >"$WORK/cluster.override.yaml"
  }
  write_override
  DC+=(-p svirctcluster -f "$ROOT/compose.cluster.yaml" -f "$WORK/cluster.override.yaml")
  CLUSTER_UP=1
  declare -A CID
  refresh_cids() { local r; for r in svir-a svir-b valkey nginx; do CID[$r]=$("${DC[@]}" ps -q "$r" 2>/dev/null | head -1); done; }
  CU=http://127.0.0.1:4000
  # "STATUS REPLICA" of one request through nginx (the replica is the one whose log has the
  # request's x-request-id); the body is in $WORK/c.body.
  creq() {
    local status rid r replica='?' try
    status=$(curl -sS -o "$WORK/c.body" -D "$WORK/c.head" -w '%{http_code}' --max-time 30 -H "Authorization: Bearer $KEY" "$@" 2>/dev/null)
    rid=$(awk 'tolower($1) == "x-request-id:" { print $2 }' "$WORK/c.head" | tr -d '\r')
    if [ -n "$rid" ]; then
      for try in 1 2 3 4 5; do
        for r in svir-a svir-b; do en logs "${CID[$r]}" 2>&1 | grep -qF "\"reqId\":\"$rid\"" && replica=$r; done
        [ "$replica" != '?' ] && break
        sleep 0.2
      done
    fi
    printf '%s %s' "$status" "$replica"
  }
  # The start of the last body on one line (for a FAIL line).
  cbody() { head -c 200 "$WORK/c.body" | tr -s '\n\r' '  '; }
  jbody() { node -e 'const r = JSON.parse(require("node:fs").readFileSync(process.argv[1], "utf8")); const v = new Function("r", "return (" + process.argv[2] + ")")(r); process.stdout.write(typeof v === "string" ? v : JSON.stringify(v) ?? "")' "$WORK/c.body" "$1" 2>/dev/null; }
  # "STATE REPLICA": the redis state one replica's /readyz shows.
  readyz_redis() { local out; out=$(creq "$CU/readyz"); printf '%s %s' "$(jbody 'r.redis?.state')" "${out#* }"; }
  # Polls /readyz until both replicas show Redis in STATE; prints the seconds it took, or fails.
  await_redis() { # STATE
    local t0 a= b= state
    t0=$(date +%s.%N)
    for _ in $(seq 1 80); do
      state=$(readyz_redis)
      case $state in "$1 svir-a") a=1 ;; "$1 svir-b") b=1 ;; esac
      [ -n "$a" ] && [ -n "$b" ] && { awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $t0}"; return 0; }
      sleep 0.25
    done
    echo "never (last: $state)"
    return 1
  }
  # Several streams at once on ct-wait (3 s each); prints "SECONDS COMPLETED MAX_OPEN REPLICAS
  # MOST_OPEN_FROM_ONE_REPLICA" (the replicas as the backend saw them: by their addresses).
  concurrent_streams() { # COUNT
    local i t0 done_ok=0
    curl -s -X POST "http://127.0.0.1:$FAKE_PORT/stats/reset" >/dev/null
    t0=$(date +%s.%N)
    for ((i = 1; i <= $1; i++)); do
      curl -sS -N --max-time 60 -H "Authorization: Bearer $KEY" -H 'content-type: application/json' \
        -d '{"model":"ct-wait","stream":true,"messages":[{"role":"user","content":"hi"}]}' "$CU/v1/chat/completions" >"$WORK/wait-$i.txt" 2>&1 &
    done
    # (this runs in $(...): its wait is for these clients only)
    wait
    for ((i = 1; i <= $1; i++)); do grep -q '^data: \[DONE\]' "$WORK/wait-$i.txt" && grep -q 'tick 12' "$WORK/wait-$i.txt" && done_ok=$((done_ok + 1)); done
    curl -s "http://127.0.0.1:$FAKE_PORT/stats" >"$WORK/c.body"
    printf '%s %s %s %s %s' "$(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $t0}")" "$done_ok" "$(jbody r.max)" \
      "$(jbody 'Object.keys(r.from).length')" "$(jbody 'Math.max(...Object.values(r.from).map((f) => f.max))')"
  }

  if ! "${DC[@]}" up -d --no-build >"$WORK/cluster-up.log" 2>&1; then
    fail "cluster: compose up: $(tail -3 "$WORK/cluster-up.log" | tr '\n' ' ')"
  else
    refresh_cids
    hosts_line=$(en exec "${CID[svir-a]}" grep host.docker.internal /etc/hosts 2>/dev/null | quiet)
    if ! [[ $hosts_line =~ ^[0-9] ]]; then
      gw=$(en exec "${CID[svir-a]}" awk '/host.containers.internal/ { print $1 }' /etc/hosts 2>/dev/null | quiet)
      info "host-gateway not resolved by the engine ('$hosts_line'): extra_hosts gets the network's gateway $gw"
      write_override "$gw"
      "${DC[@]}" up -d --no-build >>"$WORK/cluster-up.log" 2>&1 || fail "cluster: compose up with the gateway: $(tail -3 "$WORK/cluster-up.log" | tr '\n' ' ')"
      refresh_cids
    fi
    info "containers: $(for r in svir-a svir-b valkey nginx; do printf '%s=%s ' "$r" "$(en inspect --format '{{.State.Status}}' "${CID[$r]}" 2>/dev/null)"; done)"
    # Ready: both replicas see the backend and Redis (nginx alternates between them).
    ready=0
    for _ in $(seq 1 120); do
      if curl -s --max-time 2 "$CU/readyz" | grep -q '"status":"ready".*"redis":{"state":"up"'; then ready=$((ready + 1)); else ready=0; fi
      [ $ready -ge 4 ] && break
      sleep 0.5
    done
    r=$(curl -s --max-time 5 "$CU/readyz")
    [ $ready -ge 4 ] && pass "cluster: /healthz $(curl -s --max-time 5 "$CU/healthz"), /readyz through nginx: $r" \
      || { fail "cluster: /readyz never ready with Redis up on both replicas: $(head -c 200 <<<"$r" | tr -s '\n' ' ')"
        info "names as nginx's container resolves them: $(en exec "${CID[nginx]}" getent hosts svir-a svir-b valkey 2>&1 | quiet | tr -s '\n ' '  ')"
        en logs "${CID[nginx]}" 2>&1 | grep -E '\[(error|warn|crit|emerg)\]' | tail -4 | cut -c1-240 | sed 's/^/      | /'; }
    out=$(creq "$CU/v1/models")
    [ "${out%% *}" = 200 ] && grep -q '"ct-echo"' "$WORK/c.body" && pass "cluster: /v1/models through nginx lists the backend's models ($out)" \
      || fail "cluster: /v1/models: $out $(cbody)"
    out=$(creq -N -H 'content-type: application/json' -d '{"model":"ct-model","stream":true,"messages":[{"role":"user","content":"hi"}]}' "$CU/v1/chat/completions")
    { [ "${out%% *}" = 200 ] && grep -q '^data: \[DONE\]' "$WORK/c.body" && grep -q '"content":" host."' "$WORK/c.body"; } \
      && pass "cluster: streamed chat through nginx ($out)" || fail "cluster: streamed chat: $out $(cbody)"

    # A Responses chain: each turn names the previous one, wherever nginx sends it.
    prev= chain_ok=1 seen= cross=0 last_replica=
    for turn in 1 2 3 4 5 6; do
      body=$(node -e 'const [t, p] = process.argv.slice(1); const b = { model: "ct-echo", input: `turn ${t}`, store: true }; if (p) b.previous_response_id = p; process.stdout.write(JSON.stringify(b))' "$turn" "$prev")
      out=$(creq -H 'content-type: application/json' -d "$body" "$CU/v1/responses")
      text=$(jbody 'r.output?.[0]?.content?.[0]?.text')
      replica=${out#* }
      seen+="$turn:$replica "
      [ -n "$last_replica" ] && [ "$replica" != "$last_replica" ] && cross=$((cross + 1))
      last_replica=$replica
      # Turn k reaches the backend with the k user turns and the k - 1 answers before it.
      if [ "${out%% *}" != 200 ] || [ "$(jbody r.status)" != completed ] || [ "$text" != "heard turn $turn ($((2 * turn - 1)) messages)" ]; then
        chain_ok=0
        info "turn $turn: $out '$text' $(cbody)"
      fi
      prev=$(jbody r.id)
      [ "$turn" = 1 ] && first_kept=$prev
    done
    last_id=$prev last_owner=$last_replica
    if [ $chain_ok = 1 ] && [ $cross -ge 1 ] && [[ $seen == *svir-a* ]] && [[ $seen == *svir-b* ]]; then
      pass "cluster: Responses chain of 6 turns by previous_response_id, each turn's backend request held the whole conversation; replica per turn: $seen($cross turns on the other replica than the turn before)"
    else
      fail "cluster: Responses chain: complete=$chain_ok, replica per turn: $seen($cross changes of replica)"
    fi
    # The last response, read and deleted through both replicas.
    get_seen= get_ok=1
    for _ in 1 2 3 4; do
      out=$(creq "$CU/v1/responses/$last_id"); get_seen+="${out#* } "
      { [ "${out%% *}" = 200 ] && [ "$(jbody r.id)" = "$last_id" ]; } || get_ok=0
    done
    out=$(creq -X DELETE "$CU/v1/responses/$last_id"); del=$out
    del_ok=$([ "${out%% *}" = 200 ] && [ "$(jbody r.deleted)" = true ] && echo 1 || echo 0)
    gone_seen= gone_ok=1
    for _ in 1 2 3 4; do
      out=$(creq "$CU/v1/responses/$last_id"); gone_seen+="${out#* } "
      [ "${out%% *}" = 404 ] || gone_ok=0
    done
    if [ $get_ok = 1 ] && [ $del_ok = 1 ] && [ $gone_ok = 1 ] && [[ "$get_seen$gone_seen" == *svir-a* ]] && [[ "$get_seen$gone_seen" == *svir-b* ]]; then
      pass "cluster: response made by $last_owner: GET 200 from [$get_seen], DELETE 200 from ${del#* }, then GET 404 from [$gone_seen]"
    else
      fail "cluster: GET/DELETE across replicas: GET ok=$get_ok [$get_seen], DELETE $del, GET after ok=$gone_ok [$gone_seen]"
    fi

    # The backend's maxConcurrent, held across both replicas.
    n=$((MAXC + 3))
    # Each replica alone would let maxConcurrent through: the streams are spread over both, so
    # the backend sees more than maxConcurrent at once unless the replicas share the limit.
    read -r secs completed max addrs one <<<"$(concurrent_streams $n)"
    { [ "$completed" = $n ] && [ "$max" = "$MAXC" ] && [ "$addrs" = 2 ]; } \
      && pass "cluster: $n streams at once (3 s each) through both replicas: at most $max open at the backend (maxConcurrent $MAXC), all $completed completed in $secs s" \
      || fail "cluster: $n streams at once: $completed of $n completed, at most $max open at the backend (maxConcurrent $MAXC), from $addrs replicas, $secs s"

    # Valkey stopped: requests still served, each replica within its share, lookups 503.
    t0=$(date +%s.%N)
    "${DC[@]}" stop valkey >/dev/null 2>&1
    info "compose stop valkey took $(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $t0}") s"
    secs=$(await_redis down) && pass "cluster: Valkey stopped: /readyz of svir-a and of svir-b shows redis down (seen within $secs s), $(curl -s "$CU/readyz" | grep -o '"status":"[a-z]*"')" \
      || fail "cluster: Valkey stopped: /readyz redis down on both replicas: $secs"
    out=$(creq -N -H 'content-type: application/json' -d '{"model":"ct-model","stream":true,"messages":[{"role":"user","content":"hi"}]}' "$CU/v1/chat/completions")
    { [ "${out%% *}" = 200 ] && grep -q '^data: \[DONE\]' "$WORK/c.body"; } && pass "cluster: Valkey stopped: streamed chat still served ($out)" \
      || fail "cluster: Valkey stopped: chat $out $(cbody)"
    out=$(creq -H 'content-type: application/json' -d '{"model":"ct-echo","input":"while down","store":true}' "$CU/v1/responses")
    { [ "${out%% *}" = 200 ] && [ "$(jbody r.status)" = completed ] && [ "$(jbody r.store)" = false ]; } \
      && pass "cluster: Valkey stopped: a store:true Responses request is answered with store: false ($out)" \
      || fail "cluster: Valkey stopped: Responses $out $(cbody)"
    lookups=
    for _ in 1 2; do
      out=$(creq "$CU/v1/responses/$first_kept"); lookups+="${out%% *}/$(jbody r.error?.code)/${out#* } "
    done
    [ "$(grep -o '503/store_unavailable/svir-' <<<"$lookups" | wc -l)" = 2 ] && pass "cluster: Valkey stopped: GET of a stored response: $lookups(never 404)" \
      || fail "cluster: Valkey stopped: GET of a stored response: $lookups"
    read -r secs completed max addrs one <<<"$(concurrent_streams $n)"
    share=$(( MAXC / 2 > 1 ? MAXC / 2 : 1 ))
    { [ "$completed" = $n ] && [ "$addrs" = 2 ] && [ "$one" = "$share" ] && [ "$max" -le $((share * 2)) ]; } \
      && pass "cluster: Valkey stopped: $n streams at once: at most $one open from one replica (its share max(1, floor($MAXC / 2)) = $share), $max at the backend, all completed in $secs s" \
      || fail "cluster: Valkey stopped: $n streams: $completed completed, at most $one open from one replica (share $share), $max at the backend, from $addrs replicas, $secs s"

    # Valkey back: both replicas see it again by themselves; the store and the shared limit work.
    t0=$(date +%s.%N)
    "${DC[@]}" start valkey >/dev/null 2>&1
    secs=$(await_redis up) && pass "cluster: Valkey started again: /readyz of svir-a and of svir-b shows redis up $(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $t0}") s after compose start began (svir not restarted)" \
      || fail "cluster: Valkey started again: /readyz redis up on both replicas: $secs"
    prev= seen= chain_ok=1
    for turn in 1 2 3; do
      body=$(node -e 'const [t, p] = process.argv.slice(1); const b = { model: "ct-echo", input: `again ${t}`, store: true }; if (p) b.previous_response_id = p; process.stdout.write(JSON.stringify(b))' "$turn" "$prev")
      out=$(creq -H 'content-type: application/json' -d "$body" "$CU/v1/responses"); seen+="$turn:${out#* } "
      { [ "${out%% *}" = 200 ] && [ "$(jbody r.store)" = true ] && [ "$(jbody 'r.output?.[0]?.content?.[0]?.text')" = "heard again $turn ($((2 * turn - 1)) messages)" ]; } || chain_ok=0
      prev=$(jbody r.id)
    done
    { [ $chain_ok = 1 ] && [[ $seen == *svir-a* ]] && [[ $seen == *svir-b* ]]; } && pass "cluster: after Valkey's restart a new 3-turn chain is stored and followed across replicas: $seen" \
      || fail "cluster: after Valkey's restart, chain ok=$chain_ok: $seen $(cbody)"
    read -r secs completed max addrs one <<<"$(concurrent_streams $n)"
    { [ "$completed" = $n ] && [ "$max" = "$MAXC" ] && [ "$addrs" = 2 ]; } \
      && pass "cluster: after Valkey's restart: $n streams at once: at most $max open at the backend (maxConcurrent $MAXC), all completed in $secs s" \
      || fail "cluster: after Valkey's restart: $n streams: $completed completed, at most $max open (maxConcurrent $MAXC), $secs s"

    # One replica stopped: nginx sends everything to the other (it drops the stopped one from its
    # upstream once the network's DNS no longer has it, within its resolver's valid= time).
    t0=$(date +%s.%N)
    "${DC[@]}" stop svir-a >/dev/null 2>&1
    info "compose stop svir-a took $(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $t0}") s"
    t0=$(date +%s.%N) early= late= late_ok=0
    for _ in $(seq 1 40); do
      t=$(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $t0}")
      out=$(creq "$CU/v1/models")
      if awk "BEGIN{exit !($t < 5)}"; then
        [ "${out%% *}" = 200 ] || early+="[$t s: ${out%% *}] "
      else
        late+="${out#* } "
        [ "${out%% *}" = 200 ] && late_ok=$((late_ok + 1))
      fi
      awk "BEGIN{exit !($t >= 8)}" && break
      sleep 0.2
    done
    info "requests in the first 5 s after the stop that were not answered 200: ${early:-none}"
    nlate=$(wc -w <<<"$late")
    { [ "$late_ok" = "$nlate" ] && [ "$nlate" -ge 5 ] && ! [[ $late == *svir-a* ]]; } \
      && pass "cluster: svir-a stopped: from 5 s after the stop every request ($nlate) answered 200 by svir-b" \
      || fail "cluster: svir-a stopped: from 5 s after the stop, $late_ok of $nlate answered 200: $late"
    # Its own shutdown is not Redis going away: no "Redis is unreachable" after "shutting down".
    after=$(en logs "${CID[svir-a]}" 2>&1 | sed -n '/shutting down/,$p')
    { [ -n "$after" ] && ! grep -q 'Redis is unreachable' <<<"$after"; } \
      && pass "cluster: svir-a's stop logged $(grep -c . <<<"$after") line(s) from \"shutting down\" on, none saying Redis is unreachable" \
      || fail "cluster: svir-a's stop: $(grep -m1 -o 'SIGTERM[^"]*\|"msg":"cluster: Redis is unreachable' <<<"$after" | tr '\n' ' ')"
    "${DC[@]}" start svir-a >/dev/null 2>&1
    refresh_cids

    # Replicas recreated (a new image, a compose edit): nginx finds them at their new addresses.
    old=$(en inspect --format '{{range .NetworkSettings.Networks}}{{.IPAddress}} {{end}}' "${CID[svir-a]}" "${CID[svir-b]}" 2>/dev/null | tr '\n' ' ')
    t0=$(date +%s.%N)
    "${DC[@]}" up -d --no-build --force-recreate svir-a svir-b >>"$WORK/cluster-up.log" 2>&1
    upsecs=$(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $t0}")
    t0=$(date +%s.%N)
    refresh_cids
    new=$(en inspect --format '{{range .NetworkSettings.Networks}}{{.IPAddress}} {{end}}' "${CID[svir-a]}" "${CID[svir-b]}" 2>/dev/null | tr '\n' ' ')
    ok=0 seen= timeline=
    for _ in $(seq 1 120); do
      out=$(creq "$CU/v1/models")
      timeline+="$(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $t0}"):${out%% *}/${out#* } "
      if [ "${out%% *}" = 200 ]; then ok=$((ok + 1)); seen+="${out#* } "; else ok=0; seen=; fi
      [ $ok -ge 4 ] && [[ $seen == *svir-a* ]] && [[ $seen == *svir-b* ]] && break
      sleep 0.25
    done
    secs=$(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $t0}")
    info "after the recreate (seconds:status/replica): $timeline"
    { [ $ok -ge 4 ] && [[ $seen == *svir-a* ]] && [[ $seen == *svir-b* ]]; } \
      && pass "cluster: replicas recreated (addresses ${old}-> ${new}): compose up took $upsecs s, then nginx (not restarted) served from both within $secs s" \
      || fail "cluster: replicas recreated (addresses ${old}-> ${new}, compose up $upsecs s): through nginx after $secs s: last $out, seen [$seen]"
  fi
  if "${DC[@]}" down >"$WORK/cluster-down.log" 2>&1 && [ -z "$("${DC[@]}" ps -q 2>/dev/null)" ]; then
    pass "cluster: compose down, nothing left"
  else
    fail "cluster: compose down: $(tail -3 "$WORK/cluster-down.log" | tr '\n' ' ')"
  fi
  CLUSTER_UP=
  unset SVIR_API_KEYS DOCKER_HOST
fi

summary
[ $fails = 0 ]
