#!/usr/bin/env bash
# Runs every check and test of the workspace: formatting, lints, then all tests.
# This is the README's test command, and what CI (.ci/run) calls.
set -euo pipefail
cd "$(dirname "$0")/.."

source scripts/setup.sh

echo "== cargo fmt --check"
cargo fmt --all -- --check
echo "== cargo clippy (all targets, all features, warnings denied)"
cargo clippy --workspace --all-targets --all-features --locked -- -D warnings
echo "== cargo test (inside a private D-Bus session with gnome-keyring)"
bash scripts/with-keyring.sh cargo test --workspace --all-features --locked
