#!/usr/bin/env bash
# Prints the path of a Python with the tests' reference packages from PyPI, making its venv on first use:
# jsonschema (the schema test validates pipeline files with a real JSON Schema validator, not ours) and
# thumbhash (the ThumbHash test compares our encoder's bytes with it). Pinned, so a release cannot move a test.
# One venv per Python version: a bookworm and a trixie root share the checkout's .build/.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=('jsonschema==4.26.0' 'thumbhash==0.1.2')
version=$(python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')
venv=${MEDIABATCH_VENV:-.build/venv/python$version}
if ! "$venv/bin/python" -c 'import jsonschema, thumbhash' 2>/dev/null; then
  rm -rf "$venv"
  python3 -m venv "$venv" >&2    # Debian's python3 needs python3-venv (scripts/install-deps.sh)
  "$venv/bin/pip" install --quiet "${packages[@]}" >&2
fi
echo "$PWD/$venv/bin/python"
