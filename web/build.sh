#!/usr/bin/env bash
# Builds the browser playground into web/dist/ and the npm package's module into web/pkg/:
# the gordian library compiled to WebAssembly (wasm32-unknown-unknown) with Debian's
# Rust toolchain for the web (rustc-web, cargo-web, rust-web-src, rust-web-llvm, lld), bound to
# JavaScript by wasm-bindgen-cli at the wasm-bindgen version of Cargo.lock, plus the
# page's static files and every shipped instance.
#
#   bash web/build.sh          # then: bash web/serve.sh
#
# Needs (Debian): sudo apt-get update && sudo apt-get install rustc-web cargo-web \
#   rust-web-src rust-web-llvm lld-22
# (rust-web-llvm holds rust-lld, the linker of the wasm32 target; lld-22 holds wasm-ld.)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

cargo_web=/usr/bin/cargo
rustc_web=/usr/bin/rustc
# Every piece is looked for before the long compile starts, each named by its package.
missing=()
[[ -x $cargo_web ]] || missing+=("cargo-web (/usr/bin/cargo)")
[[ -x $rustc_web ]] || missing+=("rustc-web (/usr/bin/rustc)")
[[ -d /usr/lib/rustlib/src/rust/library ]] || missing+=("rust-web-src (/usr/lib/rustlib/src)")
command -v rust-lld >/dev/null || missing+=("rust-web-llvm (rust-lld)")
command -v wasm-ld-22 >/dev/null || command -v wasm-ld >/dev/null || missing+=("lld-22 (wasm-ld)")
if ((${#missing[@]})); then
    echo "web/build.sh needs Debian's Rust toolchain for WebAssembly; missing:" >&2
    printf '  %s\n' "${missing[@]}" >&2
    echo "install (refresh the package lists first: stale ones lack lld-22 and hold an older rustc-web):" >&2
    echo "  sudo apt-get update && sudo apt-get install rustc-web cargo-web rust-web-src rust-web-llvm lld-22" >&2
    exit 2
fi

# 1. The library as a WebAssembly module (src/wasm.rs holds its exports). The standard
#    library is built for wasm32 from rust-web-src (RUSTC_BOOTSTRAP allows -Zbuild-std on
#    this stable toolchain). Its own target directory: another compiler than the native
#    build's. The exports answer with the command line's renderings (src/cli/page.rs):
#    the `cli` feature (a default one, named here so that it stays on).
echo "build.sh: compiling gordian to WebAssembly (target/wasm)" >&2
RUSTC_BOOTSTRAP=1 RUSTC=$rustc_web CARGO_TARGET_DIR="$root/target/wasm" \
    CARGO_PROFILE_RELEASE_DEBUG=0 \
    "$cargo_web" rustc --lib --release --features cli \
    --target wasm32-unknown-unknown -Zbuild-std=std,panic_abort --crate-type cdylib
wasm="$root/target/wasm/wasm32-unknown-unknown/release/gordian.wasm"

# 2. wasm-bindgen-cli, pinned to Cargo.lock's wasm-bindgen (the two must match), installed
#    into target/tools unless WASM_BINDGEN names one.
version="$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)"
bindgen="${WASM_BINDGEN:-$root/target/tools/bin/wasm-bindgen}"
if [[ ! -x $bindgen ]] || [[ "$("$bindgen" --version)" != "wasm-bindgen $version" ]]; then
    echo "build.sh: installing wasm-bindgen-cli $version into target/tools" >&2
    cargo install wasm-bindgen-cli --version "$version" --root "$root/target/tools"
    bindgen="$root/target/tools/bin/wasm-bindgen"
fi

# 3. The page: its static files, the bound module, every shipped instance.
rm -rf web/dist
mkdir -p web/dist
cp -R web/src/. web/dist/
"$bindgen" --target web --no-typescript --out-dir web/dist --out-name gordian_web "$wasm"
python3 - <<'PY' > web/dist/instances.json
import json, pathlib
out = []
for d in sorted(pathlib.Path("instances").iterdir()):
    # Role setups (instances/setup/) are analysed by `gordian setup analyse`, not solved
    # by the page: every other folder is a system's.
    if not d.is_dir() or d.name == "setup":
        continue
    for f in sorted(d.iterdir()):
        if f.is_file() and f.name != "README.md":
            out.append({"system": d.name, "name": f.name, "path": str(f),
                        "text": f.read_text(encoding="utf-8")})
json.dump(out, __import__("sys").stdout, ensure_ascii=False)
PY
if [[ -f web/vendor.sh ]]; then
    bash web/vendor.sh
fi

# 4. The npm package: the same module, with its TypeScript declarations.
"$bindgen" --target web --out-dir web/pkg --out-name gordian_web "$wasm"

echo "build.sh: web/dist/ and web/pkg/ are ready ($(du -h web/dist/gordian_web_bg.wasm | cut -f1) of WebAssembly); serve with: bash web/serve.sh" >&2
