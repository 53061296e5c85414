#!/usr/bin/env bash
# Sourced by the scripts that build the desktop app (e2e.sh, package.sh): installs the
# UI's packages when the lock file changed, and builds ui/dist when one of its sources is
# newer than the last build. The app embeds ui/dist at compile time, so a rebuild of dist
# recompiles the app; skipping an unneeded one saves that.
flightdeck_build_ui() {
  if [ ! -f ui/node_modules/.package-lock.json ] || [ ui/package-lock.json -nt ui/node_modules/.package-lock.json ]; then
    echo "== ui: npm ci"
    (cd ui && npm ci --no-fund --loglevel=error)
  fi
  if [ ! -f ui/dist/index.html ] ||
    [ -n "$(find ui/src ui/index.html ui/package.json ui/package-lock.json ui/vite.config.ts ui/tsconfig.json \
      -newer ui/dist/index.html -print -quit 2>/dev/null)" ]; then
    echo "== ui: npm run build"
    (cd ui && npm run build --silent)
  fi
}
