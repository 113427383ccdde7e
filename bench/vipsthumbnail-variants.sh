#!/usr/bin/env bash
# vipsthumbnail, once per variant, for one photo: [640, 1280, 2048] × [webp, jpeg], q80, sRGB,
# upright: how a responsive-image build drives vipsthumbnail (it makes one size a run).
#   vipsthumbnail-variants.sh OUTPUT FILE
set -euo pipefail
for size in 2048 1280 640; do
  for ext in webp jpg; do
    vipsthumbnail "$2" -s "$size" --export-profile srgb -o "$1/%s-$size.$ext[Q=80]"
  done
done
