#!/usr/bin/env bash
# Runs every check and test: the UI's type check, unit tests and build; npm audit and
# cargo deny (the supply chain); the GitHub workflows (actionlint); rustfmt; Cargo.toml's
# list of host-only crates (scripts/host-crates.py); clippy with warnings denied; every
# Rust test (inside a private D-Bus session with gnome-keyring);
# schemathesis over the sandbox's OpenAPI document; the partner login page in a real
# browser engine (Chromium, scripts/browser-login.sh); 5 rounds of the chaos suite; the
# end-to-end scenario on the real app under Xvfb; then the Linux packages, installed and
# checked (scripts/check-package.sh).
# This is the README's test command, and what CI (.ci/run) calls.
#
# It closes with a summary, also when a check fails: each check and how it ended, the
# advisory database the supply-chain checks used (its date and age), warnings, and every
# check that could not run (npm audit, where the registry's advisory service cannot be
# reached), so that "not checked" is never read as "passed" (scripts/check-summary.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

source scripts/setup.sh
source scripts/check-summary.sh

check_summary_begin "$PWD/target/check-summary.tsv"
trap 'check_summary_print "$?"' EXIT

ui_checks() {
  (
    cd ui
    npm ci --no-fund
    npm run lint
    npm test
    npm run build
  )
}

run_check "ui: npm ci, lint (eslint), unit tests (vitest), type check and build" ui_checks
run_check "npm audit (high and critical advisories)" bash scripts/npm-audit.sh
run_check "cargo deny (advisories, licenses, bans, sources)" bash scripts/deny.sh
run_check "GitHub workflows (actionlint, actions pinned by commit)" bash scripts/lint-workflows.sh
run_check "cargo fmt --check" cargo fmt --all -- --check
run_check "Cargo.toml names every host-only crate at opt-level 0 (scripts/host-crates.py)" \
  python3 scripts/host-crates.py --check
# Clippy runs inside the test build: clippy-driver, as the workspace's rustc wrapper, lints
# each workspace crate and then compiles it. `cargo clippy` would type-check every
# dependency a second time, in check mode, which took 16 minutes of a 55-minute CI run.
# The wrapper and its flags stay set for every build after this one (schemathesis, chaos,
# the app), so that those find the workspace's crates already built.
export RUSTC_WORKSPACE_WRAPPER CLIPPY_ARGS
RUSTC_WORKSPACE_WRAPPER="$(rustc --print sysroot)/bin/clippy-driver"
CLIPPY_ARGS="-Dwarnings"

# CLIPPY_ARGS is how cargo-clippy itself hands its flags to clippy-driver. Should a
# toolchain stop reading it, warnings would pass this step unseen, so first: a clone of a
# Copy value must fail to compile, and the same code without the clone must not.
clippy_denies_warnings() {
  local out failed=0
  out="$(mktemp -d)"
  local driver=("$RUSTC_WORKSPACE_WRAPPER" rustc --edition 2024 --crate-type lib
    --crate-name canary --emit metadata --out-dir "$out" -)
  printf 'pub fn f(x: u8) -> u8 { x }\n' | "${driver[@]}" || failed=1
  if printf 'pub fn f(x: u8) -> u8 { x.clone() }\n' | "${driver[@]}" 2>/dev/null; then
    failed=1
  fi
  rm -rf "$out"
  if [ "$failed" -ne 0 ]; then
    echo "clippy-driver with CLIPPY_ARGS=$CLIPPY_ARGS did not deny a warning" >&2
    return 1
  fi
}

# What `cargo clippy --workspace --all-targets --all-features -- -D warnings` lints:
# libraries, binaries, tests, examples and benches.
clippy_and_build() {
  clippy_denies_warnings
  cargo test --workspace --all-features --locked --no-run
  cargo test --workspace --all-features --locked --no-run --benches
  cargo build --workspace --all-features --locked --bins
}

run_check "cargo clippy (all targets, all features, warnings denied), inside the test build" \
  clippy_and_build
run_check "cargo test (inside a private D-Bus session with gnome-keyring)" \
  bash scripts/with-keyring.sh cargo test --workspace --all-features --locked
run_check "schemathesis: the sandbox against its OpenAPI document (positive, negative, stateful)" \
  bash scripts/schemathesis.sh
run_check "the partner login page in a real browser (Chromium through chromedriver)" \
  bash scripts/browser-login.sh
run_check "chaos: real sandbox and push processes, faults and kill -9 (5 rounds)" \
  bash scripts/chaos.sh --rounds 5
run_check "end-to-end: the real app through WebDriver under Xvfb" bash scripts/e2e.sh
run_check "Linux packages: build the .deb and .rpm, install the .deb, check the installed app" \
  bash scripts/check-package.sh
