#!/usr/bin/env bash
# Prints the path of a Python with the tests' reference packages from PyPI, making its venv on first use:
# jsonschema (the schema test validates pipeline files with a real JSON Schema validator, not ours),
# thumbhash (the ThumbHash test compares our encoder's bytes with it), and for the HDR checks
# (Tests/TestSupport/hdr_reference.py) pyvips with pyvips-binary's own libvips 8.18 (built with libultrahdr:
# uhdrload, uhdr2scRGB), numpy, and pillow-heif (libheif, for Apple's HEIC gain-map auxiliary image).
# Pinned, so a release cannot move a test. One venv per Python version: a bookworm and a trixie root share
# the checkout's .build/ (every pin has manylinux wheels for CPython 3.11 and 3.13; pyvips itself is an sdist).
set -euo pipefail
cd "$(dirname "$0")/.."

vips_binary='pyvips-binary==8.18.7'
packages=('jsonschema==4.26.0' 'thumbhash==0.1.2'
          'pyvips==3.2.0' "$vips_binary" 'cffi==2.1.1' 'numpy==2.4.6' 'pillow-heif==1.8.1' 'pillow==13.0.0')
version=$(python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')
venv=${MEDIABATCH_VENV:-.build/venv/python$version}
# "Already made" means every package imports and pyvips runs pyvips-binary's libvips 8.18 with uhdrload,
# not a system libvips (Debian's is 8.14 or 8.16, without libultrahdr).
check='import jsonschema, thumbhash, numpy, pillow_heif, pyvips
assert pyvips.version(0) == 8 and pyvips.version(1) == 18, pyvips.version(1)
assert pyvips.type_find("VipsOperation", "uhdrload") != 0'
if ! "$venv/bin/python" -c "$check" 2>/dev/null; then
  rm -rf "$venv"
  python3 -m venv "$venv" >&2    # Debian's python3 needs python3-venv (scripts/install-deps.sh)
  # With no pkg-config in sight pyvips builds no API-mode module of its own against a system libvips-dev;
  # reinstalling pyvips-binary then restores its _libvips module (linked to its bundled libvips 8.18).
  PKG_CONFIG=/bin/false "$venv/bin/pip" install --quiet "${packages[@]}" >&2
  "$venv/bin/pip" install --quiet --force-reinstall --no-deps "$vips_binary" >&2
  "$venv/bin/python" -c "$check" >&2
fi
echo "$PWD/$venv/bin/python"
