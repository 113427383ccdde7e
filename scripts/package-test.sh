#!/usr/bin/env bash
# make package-test: builds the package for each release named (default: bookworm trixie), installs
# it with apt into a clean `debootstrap --variant=minbase` root of that release (a machine that never
# saw Swift), and runs it there with chroot: --version, validate, schema, the shell completions, a
# pipeline over samples/ whose outputs the host reads back with its own tools, and `man`. Needs root.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/debian-root.sh
scripts/install-deps.sh --package   # the host's vipsheader, ffprobe and exiftool read the outputs back

step() { printf '\n== %s: %s (%s)\n' "$release" "$1" "$(date -u +%T)"; }

test_release() {
  release=$1
  step "package"
  deb=$(scripts/package.sh "$release" | tee >(cat >&2) | sed -n 's/^\(dist\/[^:]*\.deb\):.*/\1/p')
  [ -f "$deb" ] || { echo "package-test: no package for $release" >&2; return 1; }

  step "clean root"
  clean=$roots/$release-clean
  root_fresh "$release" "$clean"
  trap 'root_unmount "$clean"' EXIT
  root_mount "$clean"
  mkdir -p "$clean/tmp/package-test"
  cp "$deb" "$clean/tmp/package-test/"
  cp -r samples "$clean/tmp/package-test/samples"
  in_root() { root_run "$clean" "$@"; }
  # Before: nothing of Swift's anywhere in the root, so nothing below can lean on it.
  in_root sh -c '! command -v swift && [ -z "$(find / -xdev -name "libswift*" -print -quit)" ]' \
    || { echo "package-test: the clean root has Swift in it" >&2; return 1; }

  step "apt-get install ./$(basename "$deb")"
  in_root apt-get update -qq
  in_root sh -c "cd /tmp/package-test && apt-get install -y -q ./$(basename "$deb")" | tail -3

  step "run it"
  version=$(dpkg-deb -f "$deb" Version)
  [ "$(in_root mediabatch --version)" = "${version%+deb*}" ] || { echo "package-test: --version is not ${version%+deb*}" >&2; return 1; }
  if in_root ldd /usr/bin/mediabatch | grep -E 'not found|libswift|libFoundation'; then
    echo "package-test: ldd /usr/bin/mediabatch does not resolve from Debian's packages alone" >&2
    return 1
  fi
  in_root sh -c 'for file in /usr/share/doc/mediabatch/examples/*.json; do mediabatch validate "$file" || exit 1; done'
  in_root sh -c 'mediabatch schema | cmp - /usr/share/mediabatch/pipeline.schema.json'
  in_root bash -c '. /usr/share/bash-completion/completions/mediabatch && complete -p mediabatch >/dev/null'
  in_root mediabatch run /usr/share/doc/mediabatch/examples/share-safe.json --input /tmp/package-test/samples \
    --output /tmp/package-test/out --report /tmp/package-test/report.json --quiet
  python3 scripts/check-package-outputs.py "$clean/tmp/package-test/report.json" "$clean/tmp/package-test/samples" \
    "$clean/tmp/package-test/out" --no-location
  # Without a transcode images keep their format: HEIC outputs need libheif's HEVC encoder in the root too.
  printf '%s\n' '{"version": 1, "input": {"include": ["heic/*"]}, "stages": [{"stage": "decode"},' \
    '{"stage": "downsample", "maxPixelSize": 2048}, {"stage": "write"}]}' >"$clean/tmp/package-test/keep-format.json"
  in_root mediabatch run /tmp/package-test/keep-format.json --input /tmp/package-test/samples \
    --output /tmp/package-test/kept --report /tmp/package-test/kept.json --quiet
  python3 scripts/check-package-outputs.py "$clean/tmp/package-test/kept.json" "$clean/tmp/package-test/samples" \
    "$clean/tmp/package-test/kept"

  step "man mediabatch"
  in_root apt-get install -y -q --no-install-recommends man-db >/dev/null
  warnings=$(in_root sh -c 'MANWIDTH=80 man --warnings mediabatch 2>&1 >/dev/null')
  [ -z "$warnings" ] || { echo "package-test: man reports: $warnings" >&2; return 1; }
  in_root sh -c 'MANWIDTH=80 man mediabatch | grep -q "mediabatch subcommand"' || { echo "package-test: man mediabatch shows no synopsis" >&2; return 1; }
  root_unmount "$clean"
  echo "$release: $deb installed and working in a clean root ($(du -sk "$deb" | cut -f1) KiB package, Installed-Size $(dpkg-deb -f "$deb" Installed-Size) KiB)"
}

releases=("$@")
[ ${#releases[@]} -gt 0 ] || releases=(bookworm trixie)
for release in "${releases[@]}"; do test_release "$release"; done
