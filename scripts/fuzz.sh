#!/usr/bin/env bash
# Property fuzzing on stable Rust (proptest): generated JSON of every kind through the
# decoders and validate (crates/model/tests/fuzz.rs), generated links through the
# redirect and loopback parsers (crates/client/src/auth), generated sheets through
# the CSV/TSV importer (crates/offline/tests/fuzz_sheet.rs), generated VAST
# documents, HTML tags, VAST URLs and sizes through the creative checks
# (crates/workbench/tests/fuzz.rs), generated tags and creatives through the
# previews (crates/core/tests/preview.rs), and any bytes and damaged XLSX and CSV tag
# sheets through the tag-sheet readers (crates/workbench/tests/fuzz_tagsheet.rs).
# Nothing may panic.
#
#   scripts/fuzz.sh                   the long run: 100,000 cases for each of the 19
#                                     properties, 1.9 million in all (release build)
#   scripts/fuzz.sh --cases N         N cases per property
#
# The test command runs the same properties with proptest's default of 256 cases each
# (about 4,900 in all), as part of `cargo test`. A failure prints the smallest input
# found and the seed; proptest keeps it in proptest-regressions/ to try first next time.
set -euo pipefail
cd "$(dirname "$0")/.."

cases=100000
while [ $# -gt 0 ]; do
  case "$1" in
    --cases) cases="$2"; shift ;;
    *) echo "fuzz.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done

export PROPTEST_CASES="$cases"
start=$(date +%s)
cargo test --release --locked -p flightdeck-model --test fuzz
cargo test --release --locked -p flightdeck-client --lib -- _without_a_panic
cargo test --release --locked -p flightdeck-offline --test fuzz_sheet
cargo test --release --locked -p flightdeck-workbench --test fuzz
cargo test --release --locked -p flightdeck-core --test preview -- _without_a_panic
cargo test --release --locked -p flightdeck-workbench --test fuzz_tagsheet
echo "fuzz: 19 properties x $cases cases = $((19 * cases)) cases, no panic, in $(( $(date +%s) - start )) s"
