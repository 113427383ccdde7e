#!/usr/bin/env bash
# scripts/in-debian-root.sh RELEASE COMMAND...: runs COMMAND in this checkout inside RELEASE's build root
# (made by debootstrap and kept in .build/debian/RELEASE-build; its build packages from its own apt),
# with the Swift toolchain's folder and the checkout bind-mounted at their own paths. Needs root.
#   make test-trixie    = scripts/in-debian-root.sh trixie make test SCRATCH=.build/trixie
#   make bench-trixie   = scripts/in-debian-root.sh trixie env SCRATCH=.build/trixie bench/run.sh
set -euo pipefail
. "$(dirname "$0")/debian-root.sh"
release=$1
shift
build_root "$release"
root_run "$root" env -C "$repo" "$@"
