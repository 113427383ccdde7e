#!/usr/bin/env bash
# scripts/prepare-roots.sh: makes ahead what the root steps of .ci/run would make first — each release's
# minbase tarball (debootstrap) and trixie's build root with its build packages — so that .ci/run can
# run it in the background while the host builds and tests: this waits on the mirror and the disk, the
# suite on the CPUs. Needs root and debootstrap (scripts/install-deps.sh --package).
set -euo pipefail
. "$(dirname "$0")/debian-root.sh"
for release in bookworm trixie; do root_tarball "$release" >/dev/null; done
build_root trixie
