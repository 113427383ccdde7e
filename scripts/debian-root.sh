# Debian roots made by debootstrap, for building and testing on a release other than the host's
# (scripts/in-debian-root.sh, scripts/package.sh) and for installing the package where Swift never
# was (scripts/package-test.sh). Sourced; needs root. Roots live under .build/debian/, which git
# ignores: a minbase tarball per release, made once (about a minute), and the roots unpacked from it.
#
# Host folders are bind-mounted into a root at the same path, and always unmounted before a root is
# removed, with rm --one-file-system besides: a forgotten bind must never let rm reach the checkout
# or the toolchain.

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
roots=${MEDIABATCH_ROOTS:-$repo/.build/debian}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}

# RELEASE's minbase root as a tarball, made on first use.
root_tarball() {
  local release=$1 tarball=$roots/$1-minbase.tar
  if [ ! -s "$tarball" ]; then
    local scratch=$roots/$release-debootstrap
    root_remove "$scratch"
    mkdir -p "$roots"
    # A fresh machine (CI's) has no debootstrap until install-deps.sh --package installs it.
    command -v debootstrap >/dev/null || "$repo/scripts/install-deps.sh" --package >&2
    echo "debootstrap --variant=minbase $release (once; kept in $tarball)" >&2
    debootstrap --variant=minbase "$release" "$scratch" "$mirror" >"$roots/$release-debootstrap.log" \
      || { tail -20 "$roots/$release-debootstrap.log" >&2; return 1; }
    tar -C "$scratch" -cf "$tarball.tmp" . && mv "$tarball.tmp" "$tarball"
    root_remove "$scratch"
  fi
  echo "$tarball"
}

# A fresh copy of RELEASE's minbase root at DIR (whatever was there goes).
root_fresh() {
  local release=$1 dir=$2 tarball
  tarball=$(root_tarball "$release")
  root_remove "$dir"
  mkdir -p "$dir"
  tar -C "$dir" -xf "$tarball"
  cp /etc/resolv.conf "$dir/etc/resolv.conf"   # apt and pip inside resolve names as the host does
}

# Mounts /proc, /dev and /sys into DIR, and binds each further host folder at its own path.
root_mount() {
  local dir=$1 folder
  shift
  mount -t proc proc "$dir/proc"
  mount --rbind /dev "$dir/dev" && mount --make-rslave "$dir/dev"
  mount --rbind /sys "$dir/sys" && mount --make-rslave "$dir/sys"
  for folder in "$@"; do
    mkdir -p "$dir$folder"
    mount --bind "$folder" "$dir$folder"
  done
}

# Unmounts everything mounted below DIR, deepest first.
root_unmount() {
  local dir target
  dir=$(realpath -m "$1")
  { findmnt -rn -o TARGET | grep -F "$dir/" || true; } | sort -r | while read -r target; do
    umount "$target" 2>/dev/null || umount -l "$target"
  done
}

root_remove() {
  [ -e "$1" ] || return 0
  root_unmount "$1"
  rm -rf --one-file-system "$1"
}

# Runs a command in DIR with a clean environment, the toolchain's folder on PATH (bound or not).
root_run() {
  local dir=$1
  shift
  chroot "$dir" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb DEBIAN_FRONTEND=noninteractive \
    PATH="${toolchain:+$toolchain/usr/bin:}/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" "$@"
}

# The Swift toolchain's folder (the one `swift` runs from is its usr/bin) and the local folders git
# reads packages from (url.<folder>.insteadOf, as on these machines), for a root that builds.
toolchain=$(dirname "$(dirname "$(dirname "$(readlink -f "$(command -v swift)")")")")
swift_folders() {
  echo "$toolchain"
  git config --system --get-regexp '^url\..*\.insteadof$' 2>/dev/null | sed -E 's/^url\.(.*)\.insteadof .*/\1/' \
    | sort -u | while read -r base; do [ -d "$base" ] && echo "${base%/}"; done
  return 0
}

# Gives DIR the host's git URL rewrites, so that the toolchain's git finds packages where the host's does.
root_git_config() {
  rm -f "$1/etc/gitconfig"
  git config --system --get-regexp '^url\..*\.insteadof$' 2>/dev/null | while read -r key value; do
    git config --file "$1/etc/gitconfig" --add "$key" "$value"
  done
  return 0
}

# Sets `root` to RELEASE's build root (kept): the toolchain and this checkout bound in, the build and
# packaging packages installed by install-deps.sh from the release's own apt. Mounted until the
# calling script exits.
build_root() {
  root=$roots/$1-build
  [ -x "$root/usr/bin/apt-get" ] || root_fresh "$1" "$root"
  trap 'root_unmount "$root"' EXIT
  # shellcheck disable=SC2046 # one folder per line, no spaces
  root_mount "$root" $(swift_folders) "$repo"
  root_git_config "$root"
  root_run "$root" "$repo/scripts/install-deps.sh" --toolchain --package
  root_trust_local_cas "$root"
}

# Gives DIR the certificate authorities the host added to Debian's (/usr/local/share/ca-certificates),
# so that pip inside reaches PyPI through the same network as the host does.
root_trust_local_cas() {
  compgen -G "/usr/local/share/ca-certificates/*.crt" >/dev/null || return 0
  mkdir -p "$1/usr/local/share/ca-certificates"
  cp /usr/local/share/ca-certificates/*.crt "$1/usr/local/share/ca-certificates/"
  root_run "$1" update-ca-certificates >/dev/null
}
