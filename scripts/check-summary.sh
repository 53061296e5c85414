# Sourced, not run. The test command's closing summary: scripts/test.sh points
# FLIGHTDECK_CHECK_SUMMARY at a file, and the checks it runs add lines to it (kind, a tab,
# the text) for what the summary must say:
#   not checked   a check that could not run (so it did not pass either)
#   advisory db   which advisory database the supply-chain checks used, and its age
#   warning       anything else the reader must not miss
# Run on their own (no FLIGHTDECK_CHECK_SUMMARY), the checks only print these.

# check_summary_add KIND TEXT...
check_summary_add() {
  local kind="$1"
  shift
  if [ -n "${FLIGHTDECK_CHECK_SUMMARY:-}" ]; then
    printf '%s\t%s\n' "$kind" "$*" >>"$FLIGHTDECK_CHECK_SUMMARY"
  fi
}

# check_summary_count KIND: how many lines of that kind the summary holds so far.
check_summary_count() {
  if [ -n "${FLIGHTDECK_CHECK_SUMMARY:-}" ] && [ -f "$FLIGHTDECK_CHECK_SUMMARY" ]; then
    grep -c "^$1	" "$FLIGHTDECK_CHECK_SUMMARY" || true
  else
    echo 0
  fi
}

# check_summary_lines KIND: the texts of that kind, one a line.
check_summary_lines() {
  if [ -n "${FLIGHTDECK_CHECK_SUMMARY:-}" ] && [ -f "$FLIGHTDECK_CHECK_SUMMARY" ]; then
    sed -n "s/^$1	//p" "$FLIGHTDECK_CHECK_SUMMARY"
  fi
}

# The test command's side: check_summary_begin once, then `run_check LABEL COMMAND...` for
# each check (a check that adds a "not checked" line is listed as NOT CHECKED, not as
# passed), and check_summary_print on exit, also when a check fails. Each check's
# wall-clock time is printed beside it, so a slow CI run shows where its minutes went.
check_summary_begin() {
  FLIGHTDECK_CHECK_SUMMARY="$1"
  export FLIGHTDECK_CHECK_SUMMARY
  mkdir -p "$(dirname "$FLIGHTDECK_CHECK_SUMMARY")"
  : >"$FLIGHTDECK_CHECK_SUMMARY"
  check_summary_steps=()
  check_summary_current=""
  check_summary_started="$SECONDS"
  check_summary_current_started="$SECONDS"
}

run_check() {
  local label="$1" before
  shift
  echo "== $label"
  check_summary_current="$label"
  check_summary_current_started="$SECONDS"
  before="$(check_summary_count "not checked")"
  "$@"
  local took=$((SECONDS - check_summary_current_started))
  if [ "$(check_summary_count "not checked")" -gt "$before" ]; then
    check_summary_steps+=("NOT CHECKED	$(printf '%5d s' "$took")  $label")
  else
    check_summary_steps+=("passed	$(printf '%5d s' "$took")  $label")
  fi
  check_summary_current=""
}

# check_summary_print EXIT_STATUS
check_summary_print() {
  local status="$1" step line
  echo
  echo "== summary"
  # bash's SECONDS counts from the test command's start, so what ran before the first
  # check (scripts/setup.sh: the installs) is the time before check_summary_begin.
  printf '  %-12s %5d s  (before the checks: scripts/setup.sh, the installs)\n' setup \
    "$check_summary_started"
  for step in "${check_summary_steps[@]}"; do
    printf '  %-12s %s\n' "${step%%	*}" "${step#*	}"
  done
  if [ "$status" -ne 0 ]; then
    if [ -n "$check_summary_current" ]; then
      printf '  %-12s %5d s  %s\n' FAILED "$((SECONDS - check_summary_current_started))" \
        "$check_summary_current"
    fi
    echo "  (exit status $status: the checks after this point did not run)"
  fi
  printf '  %-12s %5d s\n' total "$SECONDS"
  while IFS= read -r line; do
    echo "advisory database: $line"
  done < <(check_summary_lines "advisory db")
  while IFS= read -r line; do
    echo "warning: $line"
  done < <(check_summary_lines warning)
  if [ "$(check_summary_count "not checked")" -gt 0 ]; then
    echo "NOT CHECKED (these did not pass; they could not run):"
    while IFS= read -r line; do
      echo "  $line"
    done < <(check_summary_lines "not checked")
  elif [ "$status" -eq 0 ]; then
    echo "every check ran."
  fi
}
