#!/usr/bin/env bash
# make package [RELEASE=trixie]: dist/mediabatch_VERSION_amd64.deb for a Debian release.
#
# The binary is built with the Swift runtime and Foundation linked statically, so it needs nothing
# from a toolchain; what it does need (libvips, glib, libxml2, libsqlite3...) is read from the binary
# by dpkg-shlibdeps on the release it was built on. For a release other than the host's, this script
# runs itself inside that release's build root (scripts/debian-root.sh). The package for bookworm has
# mediabatch's version; a newer release's gets "+debN" after it, so that upgrading Debian upgrades it.
set -euo pipefail
cd "$(dirname "$0")/.."

. /etc/os-release
release=${1:-$VERSION_CODENAME}
if [ "$release" != "$VERSION_CODENAME" ]; then
  . scripts/debian-root.sh
  build_root "$release"
  root_run "$root" env SCRATCH=".build/$release" SOURCE_DATE_EPOCH="$(git log -1 --format=%ct)" \
    "$repo/scripts/package.sh" "$release"
  exit
fi

scripts/install-deps.sh --package
scratch=${SCRATCH:-.build}
# Dates in the package (file times, the man page, the changelog) are the last commit's, so the same
# commit gives the same package; without git (a `git archive` tree, as deploy/Dockerfile builds from),
# the files' own times, which git archive sets to the commit's. A root gets the date from the host.
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || stat -c %Y Package.swift)}
maintainer=$(cat packaging/maintainer)
day=$(date -u -d "@$SOURCE_DATE_EPOCH" +%F)

# Full RELRO and immediate binding, as Debian builds its own binaries: the Swift driver asks for neither,
# and trixie's linker (bfd; bookworm's Swift links with gold) then leaves the relocations writable.
swift build -c release --static-swift-stdlib --product mediabatch --scratch-path "$scratch" \
  -Xlinker -z -Xlinker relro -Xlinker -z -Xlinker now
binary=$scratch/release/mediabatch
# The machine it is installed on has no toolchain: nothing of Swift's may be loaded from one.
if ldd "$binary" | grep -E 'libswift|libFoundation|libdispatch|libBlocksRuntime|/swift/'; then
  echo "package: $binary still loads the Swift runtime" >&2
  exit 1
fi
version=$("$binary" --version)
suffix=""
[ "$release" = bookworm ] || suffix="+deb$VERSION_ID"
arch=$(dpkg --print-architecture)
stage=$scratch/deb/mediabatch
rm -rf "$stage" && mkdir -p "$stage/DEBIAN"

# Files, where Debian keeps each kind.
install -D -m 0755 "$binary" "$stage/usr/bin/mediabatch"
strip --strip-unneeded --remove-section=.comment --remove-section=.note "$stage/usr/bin/mediabatch"
# swift-argument-parser's plugin writes the man page from the command's own help; the debug build
# (made by make test) has the same help and spares a second release build.
swift package --scratch-path "$scratch" generate-manual --configuration debug --date "$day" --authors "$maintainer" >&2
mkdir -p "$stage/usr/share/man/man1"
gzip -9n <"$scratch/plugins/GenerateManual/outputs/mediabatch/mediabatch.1" >"$stage/usr/share/man/man1/mediabatch.1.gz"
install -d "$stage/usr/share/bash-completion/completions" "$stage/usr/share/zsh/vendor-completions" \
  "$stage/usr/share/fish/vendor_completions.d" "$stage/usr/share/mediabatch" "$stage/usr/share/doc/mediabatch/examples"
# bash-completion sources its scripts: the generated "#!/bin/bash" line means nothing there.
"$binary" --generate-completion-script bash | sed '1{/^#!/d}' >"$stage/usr/share/bash-completion/completions/mediabatch"
"$binary" --generate-completion-script zsh >"$stage/usr/share/zsh/vendor-completions/_mediabatch"
"$binary" --generate-completion-script fish >"$stage/usr/share/fish/vendor_completions.d/mediabatch.fish"
"$binary" schema >"$stage/usr/share/mediabatch/pipeline.schema.json"
install -m 0644 pipelines/*.json "$stage/usr/share/doc/mediabatch/examples/"
gzip -9n <README.md >"$stage/usr/share/doc/mediabatch/README.md.gz"
# The README's reference is in docs/, which it links to: the pages go beside it, compressed alike.
install -d "$stage/usr/share/doc/mediabatch/docs"
for page in docs/*.md; do
  gzip -9n <"$page" >"$stage/usr/share/doc/mediabatch/docs/${page#docs/}.gz"
done
scripts/package-copyright.sh "$scratch" >"$stage/usr/share/doc/mediabatch/copyright"
commit=$(git rev-parse --short HEAD 2>/dev/null) && built_from="commit $commit" || built_from="a git archive"
printf 'mediabatch (%s) %s; urgency=medium\n\n  * Built from %s.\n\n -- %s  %s\n' \
  "$version$suffix" "$release" "$built_from" "$maintainer" \
  "$(date -u -R -d "@$SOURCE_DATE_EPOCH")" | gzip -9n >"$stage/usr/share/doc/mediabatch/changelog.gz"

# Depends: what the binary links, as this release's packages name it. Recommends: libavformat and
# libavfilter (posters), which are opened with dlopen by the sonames of the headers built against
# (LibAVFormat.swift, LibAVDecoding.swift); libavcodec comes with libavformat.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/debian" && printf 'Source: mediabatch\n\nPackage: mediabatch\nArchitecture: any\n' >"$work/debian/control"
depends=$(cd "$work" && dpkg-shlibdeps -O "$OLDPWD/$stage/usr/bin/mediabatch" | sed -n 's/^shlibs:Depends=//p')
# The package holding LIBRARY.so.MAJOR, MAJOR as the headers built against say.
ffmpeg_package() {
  local library=$1 include major
  include=$(pkg-config --variable=includedir "$library")
  major=$(sed -n "s/^#define ${library^^}_VERSION_MAJOR *\([0-9]*\).*/\1/p" "$include/$library/version_major.h")
  dpkg -S "$(pkg-config --variable=libdir "$library")/$library.so.$major" | cut -d: -f1
}
recommends="$(ffmpeg_package libavformat), $(ffmpeg_package libavfilter)"
# libheif 1.16+ (Debian 13) decodes and encodes HEVC and AV1 through plugins, the encoders only recommended by
# libheif1: recommend every plugin this binary was built and tested with, so that HEIC and AVIF outputs work.
# (libheif's plugin folder is LIBDIR/libheif/plugins; its .pc file does not say so.)
plugins=$(pkg-config --variable=libdir libheif)/libheif/plugins
if compgen -G "$plugins/*.so" >/dev/null; then
  recommends+=$(dpkg -S "$plugins"/*.so | cut -d: -f1 | sort -u | sed 's/^/, /' | tr -d '\n')
fi

find "$stage" -type d -exec chmod 0755 {} + && find "$stage/usr/share" -type f -exec chmod 0644 {} +
(cd "$stage" && find usr -type f -print0 | sort -z | xargs -0 md5sum) >"$stage/DEBIAN/md5sums"
cat >"$stage/DEBIAN/control" <<EOF
Package: mediabatch
Version: $version$suffix
Architecture: $arch
Maintainer: $maintainer
Installed-Size: $(du -s -k --apparent-size --exclude=DEBIAN "$stage" | cut -f1)
Depends: $depends
Recommends: $recommends
Section: graphics
Priority: optional
Description: batch pipelines for photos and videos, over libvips and libavformat
 mediabatch runs declarative JSON pipelines over folders of photos and videos:
 filter by media kind, decode, downsample, transcode to sRGB JPEG, PNG or WebP,
 strip location and other metadata, and write outputs atomically, with bounded
 concurrency, a memory budget, incremental re-runs, a report and an exit code
 that CI can act on. Decoders run in worker processes, so a hostile file costs
 one item.
 .
 Videos need libavformat (and libavfilter for posters), which mediabatch opens
 on the first video it meets.
EOF

mkdir -p dist
deb=dist/mediabatch_${version}${suffix}_$arch.deb
dpkg-deb --root-owner-group -Zxz --build "$stage" "$deb" >&2
# lintian: an error fails the package, and so does a warning packaging/lintian-accepted does not
# list with the reason it is accepted. Everything lintian says is shown.
lintian --tag-display-limit 0 "$deb" >"$work/lintian" 2>&1 || true
cat "$work/lintian" >&2
if grep -q '^E: ' "$work/lintian"; then
  echo "package: lintian reports errors in $deb" >&2
  exit 1
fi
for tag in $(sed -n 's/^W: [^:]*: \([^ ]*\).*/\1/p' "$work/lintian" | sort -u); do
  grep -q "^$tag " packaging/lintian-accepted || { echo "package: lintian warning $tag is not accepted" >&2; exit 1; }
done
echo "$deb: $(du -k "$deb" | cut -f1) KiB, installed $(dpkg-deb -f "$deb" Installed-Size) KiB"
echo "  Depends: $(dpkg-deb -f "$deb" Depends)"
echo "  Recommends: $(dpkg-deb -f "$deb" Recommends)"
