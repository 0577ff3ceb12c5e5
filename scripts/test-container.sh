#!/usr/bin/env bash
# npm run test:container: builds svir's image from this checkout with docker or podman (whichever
# is present; neither: says so and exits 0) and checks that the image runs and serves, against a
# fake OpenAI-compatible backend that this script starts on the host:
#   /healthz, /v1/models with and without the key, a streamed answer from the host backend, the
#   non-root user, the healthcheck, `--version` and `check` through the entrypoint, a reload after
#   an editor-style (replacing) edit of the mounted config folder, and a stop with a stream open
#   that exits 0 within the engine's default stop timeout (10 s).
# Prints PASS/FAIL lines and a summary; exits 0 only when nothing failed.
#
# Needs: node and curl on the host; docker (its daemon running) or podman. The base image
# (node:26-slim) must be pullable or already present: where no registry is reachable, make a
# local image of that name first (podman import of a Debian root with Node 26 works).
#
# Where podman's defaults do not work (a sandbox that refuses its rlimits, crun on a hybrid
# cgroup layout), the script retries with a containers.conf of its own (CONTAINERS_CONF, for its
# own calls only). An npm registry CA of this machine (`npm config get cafile`, or
# NODE_EXTRA_CA_CERTS) is mounted for the build's RUN steps with podman (docker build cannot
# mount), never copied into the image. Podman builds with --format docker (OCI images drop the
# HEALTHCHECK); an old podman that refuses --add-host=...:host-gateway gets its bridge's gateway.
#
# Environment (optional): SVIR_CONTAINER_ENGINE=docker|podman, SVIR_CT_PORT (host port for the
# container, default 14100), SVIR_CT_KEEP=1 (keep the image and the scratch folder).
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
IMAGE=localhost/svir-test-container:latest
CONTAINER=svir-test-container
BASE=docker.io/library/node:26-slim
PORT=${SVIR_CT_PORT:-14100}
KEY=ct-$(node -e 'process.stdout.write(require("node:crypto").randomBytes(16).toString("hex"))' 2>/dev/null || echo "$RANDOM$RANDOM$RANDOM")
WORK=$(mktemp -d -t svir-test-container.XXXXXX)
FAKE_PID=
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
// stream). Model ct-slow sends one chunk a second for a minute (a stream open at stop time).
import http from 'node:http';
const chunk = (model, delta, finish = null) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-ct', object: 'chat.completion.chunk', created: 1700000000, model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
const server = http.createServer((req, res) => {
  let body = '';
  req.on('data', (d) => (body += d));
  req.on('end', () => {
    if (req.method === 'GET' && req.url === '/v1/models') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data: ['ct-model', 'ct-slow'].map((id) => ({ id, object: 'model', created: 1700000000, owned_by: 'ct' })) }));
      return;
    }
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"error":{"message":"not found"}}');
      return;
    }
    const model = JSON.parse(body).model;
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(chunk(model, { role: 'assistant', content: '' }));
    if (model === 'ct-slow') {
      let n = 0;
      const timer = setInterval(() => {
        n += 1;
        if (n > 60) { clearInterval(timer); res.write(chunk(model, {}, 'stop')); res.end('data: [DONE]\n\n'); return; }
        res.write(chunk(model, { content: `tick ${n} ` }));
      }, 1000);
      res.on('close', () => clearInterval(timer));
      return;
    }
    for (const word of ['Hello', ' from', ' the', ' host.']) res.write(chunk(model, { content: word }));
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

summary
[ $fails = 0 ]
