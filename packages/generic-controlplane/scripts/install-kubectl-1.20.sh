#!/usr/bin/env bash
# Installs the "old client" profile: Debian bookworm's kubernetes-client (kubectl 1.20.2) unpacked
# into <repo>/.tools/kubectl-1.20 (gitignored), without touching the system kubectl. Idempotent.
# Needs an apt cache that knows the package (run `apt-get update` first on a fresh machine).
set -euo pipefail
repo_root="$(cd "$(dirname "$0")/../../.." && pwd)"
target="${1:-$repo_root/.tools/kubectl-1.20}"
binary="$target/usr/bin/kubectl"

if [ -x "$binary" ]; then
  echo "$binary"
  exit 0
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
(cd "$work" && apt-get download kubernetes-client >/dev/null)
mkdir -p "$target"
dpkg -x "$work"/kubernetes-client_*.deb "$target"
"$binary" version --client --short >/dev/null
echo "$binary"
