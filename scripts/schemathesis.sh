#!/usr/bin/env bash
# Property-based tests of the sandbox's HTTP surface with schemathesis, against the OpenAPI
# document it serves (GET /openapi.json): every operation, positive and negative data, in
# the examples, coverage, fuzzing and stateful phases, with every check. The run fails on
# any failure; the ones that must stay at 0 are server errors (not_a_server_error), schema
# violations (response_schema_conformance) and schema-valid requests rejected
# (positive_data_acceptance).
#
#   scripts/schemathesis.sh           CI's short run: 80 examples per operation and a fixed
#                                     seed, about 2 minutes once the sandbox is built (the
#                                     first run also creates the venv: about 20 s)
#   scripts/schemathesis.sh --long    the long run: 1,000 examples per operation and a
#                                     random seed (printed at the end, for `-- --seed N`);
#                                     about 15 minutes, 25,000 cases
#   scripts/schemathesis.sh -- ARGS   extra arguments for `st run` (after the script's own)
#
# What it does:
# - creates target/venv-schemathesis with `python3 -m venv` and installs the pinned
#   schemathesis (once; again only when the pin changes);
# - builds and starts the sandbox binary on a free loopback port with the demo seed and a
#   known clock, and signs in as demo/demo (the access token goes on every request;
#   business endpoints take it as audience endpoints do);
# - runs `st run` with scripts/schemathesis/hooks.py (see there for the refusals JSON
#   Schema cannot describe, such as a reference to an advertiser that does not exist:
#   they are counted and listed at the end, never silently passed);
# - writes a JUnit report to target/schemathesis/ and stops the sandbox.
#
# CI calls it with no argument after the Rust tests (the sandbox binary is then built).
set -euo pipefail
cd "$(dirname "$0")/.."

SCHEMATHESIS_VERSION=4.32.5
# Demo clock: 2027-01-15T08:00:00Z, as the Rust tests' NOW.
CLOCK_MS=1800000000000

examples=80
seed=20261126
extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --long) examples=1000; seed="" ;;
    --) shift; extra=("$@"); break ;;
    *) echo "usage: $0 [--long] [-- ST_RUN_ARGS...]" >&2; exit 2 ;;
  esac
  shift
done

venv=target/venv-schemathesis
if [ "$("$venv/bin/st" --version 2>/dev/null || true)" != "st, version $SCHEMATHESIS_VERSION" ]; then
  echo "== schemathesis $SCHEMATHESIS_VERSION: creating $venv"
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$SCHEMATHESIS_VERSION"
fi

echo "== building the sandbox"
# With the test build's features (the whole workspace's, all of them): built alone, its
# dependencies resolve other features and 96 crates compile again (4.7 minutes here).
cargo build --workspace --all-features --locked --quiet --bin flightdeck-sandbox

out=target/schemathesis
mkdir -p "$out"
log="$out/sandbox.log"
# The sandbox reads the admin token from the environment; none here.
env -u FLIGHTDECK_SANDBOX_ADMIN_TOKEN target/debug/flightdeck-sandbox \
  --addr 127.0.0.1:0 --seed demo --clock "$CLOCK_MS" >"$log" 2>&1 &
sandbox=$!
trap 'kill "$sandbox" 2>/dev/null || true; wait "$sandbox" 2>/dev/null || true' EXIT
url=""
for _ in $(seq 1 200); do
  url=$(sed -n 's/^listening on //p' "$log" | head -n 1)
  [ -n "$url" ] && break
  kill -0 "$sandbox" 2>/dev/null || { cat "$log" >&2; exit 1; }
  sleep 0.05
done
[ -n "$url" ] || { echo "the sandbox did not start" >&2; cat "$log" >&2; exit 1; }
echo "== sandbox on $url"

token=$("$venv/bin/python" - "$url" <<'PY'
import base64, json, sys, urllib.request
request = urllib.request.Request(
    sys.argv[1] + "/v1/oauth2/authenticate",
    method="POST",
    headers={"Authorization": "Basic " + base64.b64encode(b"demo:demo").decode()},
)
print(json.load(urllib.request.urlopen(request))["access_token"])
PY
)

seed_args=()
[ -n "$seed" ] && seed_args=(--seed "$seed")
echo "== st run: $examples examples per operation${seed:+, seed $seed}"
start=$(date +%s)
status=0
SCHEMATHESIS_HOOKS=scripts/schemathesis/hooks.py FLIGHTDECK_ST_DROPPED="$out/dropped.json" \
  FLIGHTDECK_ST_SEED="$seed" \
  "$venv/bin/st" --config-file scripts/schemathesis/schemathesis.toml run "$url/openapi.json" \
  --header "Authorization: Bearer $token" \
  --phases examples,coverage,fuzzing,stateful \
  --mode all \
  --checks all \
  --max-examples "$examples" \
  "${seed_args[@]}" \
  --workers 1 \
  --request-timeout 30 \
  --generation-database none \
  --no-color \
  --report junit --report-junit-path "$out/junit.xml" \
  "${extra[@]}" || status=$?
echo "== schemathesis took $(( $(date +%s) - start )) s; exit $status"
if [ -s "$out/dropped.json" ]; then
  echo "== schema-valid requests refused only by rules JSON Schema cannot state (see hooks.py):"
  "$venv/bin/python" - "$out/dropped.json" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))
print(f"   {sum(r['count'] for r in rows)} in all")
for r in rows:
    print(f"   {r['count']:6}  {r['operation']}: {r['rule']}")
PY
fi
exit "$status"
