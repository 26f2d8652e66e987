#!/usr/bin/env bash
# Set up, build, and run every test through ctest (the single entry point).
# Tests that need DynamoDB or S3 start their own moto server on loopback.
# Extra arguments go to ctest, e.g. scripts/test.sh -R conformance.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$repo/scripts/setup.sh" release
ctest --preset release -j "$(nproc)" "$@"
