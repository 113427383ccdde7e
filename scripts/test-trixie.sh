#!/usr/bin/env bash
# make test-trixie: the whole test suite on Debian 13 from this Debian 12 machine. A trixie root made by
# debootstrap (kept in .build/debian/trixie-build) gets the build packages from trixie's own apt; the
# Swift toolchain's folder and this checkout are bind-mounted into it, and `make test` runs inside it
# with chroot, building into .build/trixie so that the host's .build stays bookworm's. Needs root.
set -euo pipefail
. "$(dirname "$0")/debian-root.sh"

build_root trixie
# The binary the tests run must be trixie's: it links trixie's libvips (8.16), whose soname is the same.
root_run "$root" make -C "$repo" test SCRATCH=.build/trixie
