#!/usr/bin/env bash
# Installs the Debian packages mediabatch builds, tests and packages with, when any is missing.
#
#   scripts/install-deps.sh [--toolchain] [--package] [PACKAGE...]
#
# By default: libvips (with libheif, libexif), libheif's, libavformat's, LibRaw's, zlib's and libcrypto's (libssl-dev) headers, the C libraries; exiftool,
# ffprobe, heif-info, djxl, webpmux (webp: an animated WebP's frames) and LibRaw's dcraw_emu, which the tests read outputs back with (and sqlite3, which damages a state database), independently of libvips; strace, which
# the durability test watches a run's syncs and renames with; e2fsprogs' chattr, which makes an output folder
# unwritable even for root; python3-venv, for the
# reference implementations tests compare with (PyPI: jsonschema, thumbhash, pyvips with libvips 8.18, pillow-heif, numpy). --toolchain adds what
# the Swift toolchain itself needs on a bare Debian (a debootstrap root: a machine with Swift
# installed has these already); --package adds what
# `make package` uses (dpkg-shlibdeps, lintian) and `make package-test` (debootstrap).
#
# Debian 12 (bookworm) and 13 (trixie) are known. The -dev packages have the same names on both; the
# toolchain's runtime libraries do not (trixie's 64-bit time_t transition renamed libcurl4 to
# libcurl4t64; its compiler is GCC 14; gold left binutils for binutils-gold), and trixie's libheif
# encodes HEVC and AV1 (HEIC and AVIF outputs) through plugins it only recommends. The package's own Depends are read from the built binary
# (scripts/package.sh), so runtime names such as libvips42t64, libavformat61 or libraw23t64 are never listed here.
set -euo pipefail

with_toolchain=false with_package=false extra=()
for argument in "$@"; do
  case "$argument" in
    --toolchain) with_toolchain=true ;;
    --package) with_package=true ;;
    *) extra+=("$argument") ;;
  esac
done

. /etc/os-release
case "${VERSION_CODENAME:-}" in
  bookworm) gcc=12 curl=libcurl4 gold=binutils heif_encoders=() ;;
  trixie) gcc=14 curl=libcurl4t64 gold=binutils-gold heif_encoders=(libheif-plugin-x265 libheif-plugin-aomenc) ;;
  *) echo "install-deps: Debian ${VERSION_CODENAME:-?} is not one mediabatch knows (bookworm, trixie)" >&2; exit 1 ;;
esac

packages=(pkg-config libsqlite3-dev libssl-dev libvips-dev libheif-dev libvips-tools libavformat-dev libavcodec-dev libavfilter-dev libavutil-dev zlib1g-dev libraw-dev libraw-bin
          libimage-exiftool-perl libheif-examples libjxl-tools webp ffmpeg sqlite3 python3 python3-venv strace e2fsprogs "${heif_encoders[@]}")
if $with_toolchain; then
  # swift-build and swift-frontend link these; clang links against GCC's C and C++ runtime, with gold
  # when there is one (trixie moved it out of binutils; without it, bfd leaves the binary without RELRO).
  packages+=(binutils "$gold" libc6-dev "libgcc-$gcc-dev" "libstdc++-$gcc-dev" "$curl" libedit2 libncurses6 libxml2
             libsqlite3-0 zlib1g-dev git ca-certificates tzdata)
fi
if $with_package; then
  packages+=(dpkg-dev lintian man-db debootstrap)
fi
packages+=("${extra[@]}")

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
