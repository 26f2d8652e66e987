#!/usr/bin/env bash
# Quick start: set up, build, and run the main job on the embedded default
# (a real round trip through the sqlite engine: create the table, write,
# query, print).
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$repo/scripts/setup.sh" release
workdir=$(mktemp -d)
trap 'rm -rf "$workdir"' EXIT
"$repo/build/release/src/cli/stowage" --db "$workdir/stowage.db" table roundtrip
