#!/usr/bin/env bash
# web/serve.sh: serves the built playground (web/dist, made by web/build.sh) on localhost
# only, and prints its address. Python's http.server sends .wasm as application/wasm.
# Usage: bash web/serve.sh            (PORT=8000 by default; PORT=9000 bash web/serve.sh)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
dist="$here/dist"
port="${PORT:-8000}"
if [ ! -f "$dist/index.html" ]; then
  echo "serve.sh: $dist/index.html is missing: run 'bash web/build.sh' first" >&2
  exit 1
fi
echo "gordian playground: http://127.0.0.1:$port/   (Ctrl+C stops it)"
exec python3 -m http.server --bind 127.0.0.1 "$port" --directory "$dist"
