#!/usr/bin/env bash
# Prints the package's copyright file: mediabatch's own notice, then every component the binary
# links statically (the Swift runtime and Foundation, and the Swift packages SwiftPM checked out
# under SCRATCH/checkouts) with its licence. Licences Debian ships in /usr/share/common-licenses are
# referred to there; the others are copied from the component's own files.
#
#   scripts/package-copyright.sh [SCRATCH]
set -euo pipefail
cd "$(dirname "$0")/.."
checkouts=${1:-.build}/checkouts
toolchain=$(dirname "$(dirname "$(dirname "$(readlink -f "$(command -v swift)")")")")

# A licence text as a copyright-file field body: indented, blank lines as " .".
body() { sed 's/^[[:space:]]*$/./; s/^/ /'; }

cat <<END
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: mediabatch
Comment: The binary links the Swift runtime, Foundation and the Swift packages below
 statically; their notices follow. It links libvips, glib, libxml2, libsqlite3, LibRaw and libcrypto
 dynamically, from Debian's packages (see Depends), and opens libavformat and libavfilter at run time.

Files: *
Copyright: the mediabatch maintainers
License: not-yet-published
 The mediabatch project has not yet published a licence for its own code.

Files: usr/bin/mediabatch
Comment: The Swift standard library, Foundation and Dispatch, from the Swift toolchain.
Copyright: Apple Inc. and the Swift project authors
License: Apache-2.0 with Runtime Library Exception
 The Apache License 2.0 is in /usr/share/common-licenses/Apache-2.0. The exception,
 from the toolchain's LICENSE.txt:
$(sed -n '/Runtime Library Exception/,$p' "$toolchain/usr/share/swift/LICENSE.txt" | body)

Files: usr/bin/mediabatch
Comment: ICU, as swift-foundation-icu packages it inside Foundation.
Copyright: Unicode, Inc. and others
License: Unicode-3.0
 The Unicode License v3: https://www.unicode.org/license.txt
END

for package in "$checkouts"/*/; do
  name=$(basename "$package")
  license=$(find "$package" -maxdepth 1 -type f \( -name 'LICENSE' -o -name 'LICENSE.*' \) | head -1)
  [ -n "$license" ] || { echo "package-copyright: $name has no LICENSE file" >&2; exit 1; }
  printf '\nFiles: usr/bin/mediabatch\nComment: %s, a Swift package linked statically.\n' "$name"
  if grep -q 'Apache License' "$license" && grep -q 'Version 2.0' "$license"; then
    printf 'License: Apache-2.0\n The Apache License 2.0 is in /usr/share/common-licenses/Apache-2.0.\n'
  else
    printf 'License: other\n'
    body <"$license"
  fi
done
