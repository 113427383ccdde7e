#!/usr/bin/env bash
# The decode-only bound of one file: its pixels decoded whole and thrown away, by the library every
# tool here ends up in (libjpeg-turbo's djpeg; libheif through `vips avg`, one libvips thread, for the
# rest). Run under `xargs -P<cores>`, it says how fast any tool could read the set.
case ${1,,} in
  *.jpg|*.jpeg) exec djpeg -outfile /dev/null "$1" ;;
  *) VIPS_CONCURRENCY=1 exec vips avg "$1" >/dev/null ;;
esac
