#!/usr/bin/env bash
# Installs the Debian packages mediabatch builds and tests against, when any is missing.
# libvips (with libheif, libexif) and libavformat are the C libraries; exiftool and ffprobe
# are what the tests use to read outputs back independently of libvips; python3-venv holds
# the reference implementations tests compare with (PyPI, in .build/test-python).
set -euo pipefail

packages=(pkg-config libsqlite3-dev libvips-dev libvips-tools libavformat-dev libavcodec-dev libavutil-dev
          libimage-exiftool-perl ffmpeg python3 python3-venv "$@")

missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "Installing: ${missing[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
