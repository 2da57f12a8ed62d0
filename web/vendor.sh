#!/usr/bin/env bash
# web/vendor.sh: copies the page's third-party browser files from web/node_modules into
# a dist folder's vendor/ (default web/dist/vendor/). Today that is Graphviz compiled to
# WebAssembly, @viz-js/viz's standalone ES module dist/viz.js (its WebAssembly is inlined),
# which draws the `dot` picture. Called by web/build.sh after it fills web/dist.
#
# The page works without it (no picture then), so a missing package is a warning, not an
# error: this script installs web/package-lock.json's packages with `npm ci` when they are
# absent and npm is there, and otherwise leaves vendor/ out.
#
# Usage: bash web/vendor.sh [DIST_DIR]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
dist="${1:-$here/dist}"
viz="$here/node_modules/@viz-js/viz"

if [ ! -f "$viz/dist/viz.js" ] && command -v npm >/dev/null 2>&1; then
  echo "vendor.sh: installing web/package-lock.json's packages (npm ci)" >&2
  (cd "$here" && npm ci --no-audit --no-fund --loglevel=error) || true
fi
if [ ! -f "$viz/dist/viz.js" ]; then
  echo "vendor.sh: warning: $viz/dist/viz.js is missing: the page will have no picture" >&2
  exit 0
fi
mkdir -p "$dist/vendor"
cp "$viz/dist/viz.js" "$dist/vendor/viz.js"
[ -f "$viz/LICENSE" ] && cp "$viz/LICENSE" "$dist/vendor/viz.LICENSE.txt"
echo "vendor.sh: copied @viz-js/viz $(node -p "require('$viz/package.json').version" 2>/dev/null || echo '') to $dist/vendor/" >&2
