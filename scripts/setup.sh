#!/usr/bin/env bash
# Installs what Stowage needs to build and test, then configures and builds.
# Idempotent and quick when nothing is missing: Debian packages are installed
# only when one is absent, and the Python environment (moto's server, the
# DynamoDB and S3 test peer) is rebuilt only when its requirements change.
#
# Usage: scripts/setup.sh [preset]   (preset: release (default) or debug)
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
preset=${1:-release}

debian_packages=(
  build-essential cmake ninja-build pkg-config git
  libsqlite3-dev libcurl4-openssl-dev libssl-dev rapidjson-dev libexpat1-dev
  libvips-dev libmagic-dev libboost-dev
  libfmt-dev libspdlog-dev libcli11-dev libtomlplusplus-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  python3 python3-venv
)

missing=()
for package in "${debian_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" \
    || missing+=("$package")
done
if ((${#missing[@]})); then
  echo "setup: installing Debian packages: ${missing[*]}"
  sudo_cmd=()
  [[ $(id -u) -eq 0 ]] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

venv="$repo/.venv"
requirements="$repo/scripts/requirements-test.txt"
stamp="$venv/.requirements.sha256"
wanted=$(sha256sum "$requirements" | cut -d' ' -f1)
if [[ ! -x "$venv/bin/moto_server" || "$(cat "$stamp" 2>/dev/null)" != "$wanted" ]]; then
  echo "setup: creating the Python environment for the test peers in .venv"
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$requirements"
  echo "$wanted" > "$stamp"
fi

cmake --preset "$preset" -S "$repo" > /dev/null
cmake --build --preset "$preset"
