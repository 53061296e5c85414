#!/usr/bin/env bash
# The chaos suite (crates/cli/examples/chaos.rs): a real flightdeck-sandbox process and
# real `flightdeck push` processes, with 10 % 5xx, 5 % commit-then-drop and 5 % late
# commits (a write that lands after its client gave up), and a kill -9 of a push at a
# random moment; then pushes until nothing is pending, settling "needs review" with
# `flightdeck review` after looking on the service. Each round checks, over HTTP and in
# the sandbox's database, that nothing is lost, duplicated or left pending, and that no
# creative made under a campaign needed review (its campaign's listing finds it). The
# summary gives needs-review for creatives with a campaign and without one apart.
#
#   scripts/chaos.sh                        5 rounds (the test command's run)
#   scripts/chaos.sh --rounds 100           the long run
#   scripts/chaos.sh --seed S --round R     replays round R of a run with seed S
#
# Runs inside scripts/with-keyring.sh (the CLI keeps its tokens in the Secret Service).
set -euo pipefail
cd "$(dirname "$0")/.."
# With the test build's features, so nothing compiles again after it (see schemathesis.sh).
cargo build --workspace --all-features --locked \
  --bin flightdeck-sandbox --bin flightdeck --example chaos
exec scripts/with-keyring.sh target/debug/examples/chaos "$@"
