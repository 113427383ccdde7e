#!/usr/bin/env bash
# Builds the reduce timing programs into bench/.work/reduce with the shim's sources compiled in,
# as SwiftPM's release build compiles them (-O2), against the libvips pkg-config finds: on the
# host, or inside a Debian root (scripts/in-debian-root.sh trixie bench/reduce/build.sh).
#   CC=gcc bench/reduce/build.sh    another compiler (default: cc)
#   OUT=bench/.work/reduce-trixie   another folder (a root's build beside the host's)
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-bench/.work/reduce}
mkdir -p "$out"
shim=(Sources/CMediaShim/wrappers/shim.c Sources/CMediaShim/kernels/reduce.c Sources/CMediaShim/kernels/reduce_kernels.c
      Sources/CMediaShim/kernels/resize.c)
# shellcheck disable=SC2046 # pkg-config's flags are words
flags=(-O2 -fno-omit-frame-pointer -I Sources/CMediaShim/include -I bench/reduce $(pkg-config --cflags vips))
for program in reduce-timing thumbnail-timing scaled-dct; do
    # shellcheck disable=SC2046 # scaled-dct calls libjpeg itself (libjpeg-turbo, which libvips-dev installs); shim.c loads
    # libvips' modules through GModule
    "${CC:-cc}" "${flags[@]}" "bench/reduce/$program.c" "${shim[@]}" $(pkg-config --libs vips gmodule-2.0) -ljpeg -lm -o "$out/$program"
done
echo "built $(ls "$out" | tr '\n' ' ')in $out"
