#!/usr/bin/env bash
# Benchmarks mediabatch against its peers on the same files with the same settings
# (longest side 2048 px, JPEG q80, sRGB, orientation applied), then checks the memory budget
# and memory flatness. Prints images/s, mediabatch's ratio to each peer, and peak RSS.
#
#   bench/run.sh            # all of it (≈ 55 minutes on 2 cores, 24 of them the scale set, 9 the hdr set; inputs are cached in bench/.work)
#   SETS="jpeg12" bench/run.sh
#   BASELINE=/path/to/older/mediabatch SETS="jpeg12 variants" bench/run.sh   # an earlier build beside this one, same run
#   SETS=hdr bench/run.sh   # what keeping HDR gain maps costs (HEIC and Ultra HDR JPEG; libvips 8.18 beside)
#   SETS=raw bench/run.sh   # camera RAW: preview and develop against dcraw_emu and exiftool + vipsthumbnail
#   SETS=huge bench/run.sh  # 50 MP to 1 Gpx, each alone, with peak memory and estimates (≈ 15 minutes the first time, 4 after)
#   BEST_OF=3 SETS=heic12 bench/run.sh   # the photo sets' every tool timed three times, its best kept (a moment's load elsewhere does not decide)
#   make bench-trixie       # the same on Debian 13, in its debootstrap root (needs root)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
work=$root/bench/.work
corpus=${CORPUS:-$root/../shared/corpus}
cpus=$(nproc)
sets=${SETS:-"jpeg12 heic12 mixed48 memory scale classify incremental variants tinymeta privacy privacysidecars hdr durability cover animation posters renditions"}

./scripts/install-deps.sh imagemagick time sqlite3 libjpeg-turbo-progs ffmpegthumbnailer libraw-bin
# MEDIABATCH: a binary to measure (the packaged one, say); else a release build into SCRATCH (.build, or
# .build/trixie when make bench-trixie runs this in the Debian 13 root).
if [[ -n ${MEDIABATCH:-} ]]; then
  mediabatch=$(realpath "$MEDIABATCH")
else
  swift build -c release --scratch-path "${SCRATCH:-.build}" >/dev/null
  mediabatch=$root/${SCRATCH:-.build}/release/mediabatch
fi
. /etc/os-release
echo "$PRETTY_NAME, $(vips --version), $mediabatch"
mkdir -p "$work"
# A run's output folder is moved to the trash, not deleted, and the trash emptied after each set, 31 s
# before the next set's first run: on an ext4 without a journal (these VMs'), each file created within
# 30 s of a deletion makes the allocator step over every inode freed in that time (`recently_deleted` in
# ext4's ialloc.c), a cost of deletions × creations that would fall on the run after, the heavier the
# more files it writes (perf, privacysidecars: 8% of its samples, 1% of the run without sidecars).
fresh_output() { [[ ! -e $work/out ]] || mv "$work/out" "$work/trash/$((++trashed))"; mkdir -p "$work/out"; }
empty_trash() {
  [[ -z $(ls -A "$work/trash" 2>/dev/null) ]] || { rm -rf "$work/trash"; emptied=$SECONDS; }
  mkdir -p "$work/trash"
}
settle() { local wait=$((emptied + 31 - SECONDS)); ((wait <= 0)) || sleep "$wait"; }
trashed=0 emptied=-31
empty_trash
trap 'rm -rf "$work/trash"' EXIT

# Real photos as sources: the shared corpus when present, the bundled samples otherwise.
pick() { for f in "$@"; do [ -f "$corpus/$f" ] && { echo "$corpus/$f"; return; }; done; return 0; }
jpeg_sources=("$(pick livephoto/train.jpg)" "$(pick jpeg/apple_iphone_6.jpg)" "$(pick jpeg/nokia_lumia_800.jpg)")
heic_sources=("$(pick heic/IMG_1034.heic)" "$(pick heic/iphone_xr_issue263.heic)" "$(pick heic/pug.heic)" "$(pick heic/samsung_s10_issue487.heic)")
[ -n "${jpeg_sources[0]}" ] || jpeg_sources=("$root/samples/jpeg/apple_iphone_4.jpg" "$root/samples/heic/IMG_1034.heic")
[ -n "${heic_sources[0]}" ] || heic_sources=("$root/samples/heic/IMG_1034.heic" "$root/samples/heic/iphone_xr_issue263.heic")
# The hdr set: the corpus' iPhone HEIC with an Apple gain map (the bundled copy otherwise), and an Ultra HDR JPEG (none bundled: its half is skipped without the corpus).
hdr_heic=$(pick heic/pug.heic); hdr_heic=${hdr_heic:-$root/samples/heic/pug.heic}
hdr_jpeg=$(pick jpeg/ultra-hdr.jpg)

make_inputs() {
  local set=$1 dir=$work/inputs/$1
  [ -f "$dir/.done" ] && return
  rm -rf "$dir"; mkdir -p "$dir"
  case $set in
    jpeg12) # 100 × 12 MP (4032×3024) camera-quality JPEGs: enough that start-up is not what is measured
      for i in $(seq 0 99); do
        src=${jpeg_sources[$((i % ${#jpeg_sources[@]}))]}
        [ -f "$dir/base$((i % ${#jpeg_sources[@]})).jpg" ] ||
          vips thumbnail "$src" "$dir/base$((i % ${#jpeg_sources[@]})).jpg[Q=90]" 4032 --height 3024 --crop centre --size both
        cp "$dir/base$((i % ${#jpeg_sources[@]})).jpg" "$dir/photo$i.jpg"
      done
      rm -f "$dir"/base*.jpg ;;
    hdrheic20) # 20 × a real 12 MP iPhone 13 Pro HEIC with Apple's gain map (the corpus' only such photo under 200 MP)
      for i in $(seq 0 19); do cp "$hdr_heic" "$dir/photo$i.heic"; done ;;
    uhdr100) # 100 × a 3840×2160 Ultra HDR JPEG (libultrahdr's LGPL test image: used here, never committed)
      for i in $(seq 0 99); do cp "$hdr_jpeg" "$dir/photo$i.jpg"; done ;;
    gif40) # 40 × an animated GIF of 640×360, 30 frames at 10 fps (ffmpeg's testsrc2: moving shapes and colour bars)
      ffmpeg -loglevel error -f lavfi -i testsrc2=size=640x360:rate=10:duration=3 -loop 0 "$dir/base.gif"
      for i in $(seq 0 39); do cp "$dir/base.gif" "$dir/anim$i.gif"; done
      rm -f "$dir/base.gif" ;;
    heic12) # 20 × real 12 MP iPhone/Samsung HEICs
      for i in $(seq 0 19); do cp "${heic_sources[$((i % ${#heic_sources[@]}))]}" "$dir/photo$i.heic"; done ;;
    mixed48) # 8 × 48 MP JPEG + 4 × 48 MP HEIC (8064×6048)
      vips resize "${jpeg_sources[0]}" "$work/big.v" 2 --kernel linear
      vips crop "$work/big.v" "$work/big48.v" 0 0 8064 6048
      vips jpegsave "$work/big48.v" "$dir/big0.jpg" --Q 90
      vips heifsave "$work/big48.v" "$dir/bigh0.heic" --Q 70
      for i in 1 2 3 4 5 6 7; do cp "$dir/big0.jpg" "$dir/big$i.jpg"; done
      for i in 1 2 3; do cp "$dir/bigh0.heic" "$dir/bigh$i.heic"; done
      rm -f "$work"/big.v "$work"/big48.v ;;
    classify10000) # every bundled sample and kind fixture, hard-linked over and over in folders of 100
      local sources=() i=0
      mapfile -t sources < <(find "$root/samples" "$root/Tests/Fixtures/kinds" -type f ! -name MANIFEST.tsv ! -name "*avis*" | sort) # libvips 8.14 cannot open avis
      while [ $i -lt 10000 ]; do
        mkdir -p "$dir/f$((i / 100))"
        local src=${sources[$((i % ${#sources[@]}))]}
        ln "$src" "$dir/f$((i / 100))/$i-$(basename "$src")"
        i=$((i + 1))
      done ;;
    posters20) # the sample movies and three clips made here (4K HEVC 10-bit PQ, 1080p HLG, 1080p HEVC turned a quarter): 20 files
      local clips=$work/poster-clips sources=() hevc=(-c:v libx265 -preset ultrafast -x265-params log-level=error -tag:v hvc1)
      local hdr=(-pix_fmt yuv420p10le -color_primaries bt2020 -colorspace bt2020nc)
      mkdir -p "$clips"
      # The colour in the HEVC stream itself, as phones write it (FFmpeg 7.1 no longer passes -color_trc to x265).
      local x265=log-level=error:colorprim=bt2020:colormatrix=bt2020nc:transfer
      [ -f "$clips/pq-4k.mp4" ] || ffmpeg -v error -f lavfi -i testsrc2=size=3840x2160:rate=30:duration=8 "${hevc[@]}" "${hdr[@]}" -color_trc smpte2084 -x265-params $x265=smpte2084 "$clips/pq-4k.mp4"
      [ -f "$clips/hlg-1080.mp4" ] || ffmpeg -v error -f lavfi -i testsrc2=size=1920x1080:rate=30:duration=8 "${hevc[@]}" "${hdr[@]}" -color_trc arib-std-b67 -x265-params $x265=arib-std-b67 "$clips/hlg-1080.mp4"
      if [ ! -f "$clips/turned-1080.mov" ]; then
        ffmpeg -v error -f lavfi -i testsrc2=size=1920x1080:rate=30:duration=8 "${hevc[@]}" "$clips/stored.mov"
        ffmpeg -v error -i "$clips/stored.mov" -c copy -metadata:s:v:0 rotate=90 "$clips/turned-1080.mov"; rm "$clips/stored.mov"
      fi
      mapfile -t sources < <(ls "$root"/samples/video/* "$root"/samples/livephoto/*.mov "$clips"/*)
      for i in $(seq 0 19); do src=${sources[$((i % ${#sources[@]}))]}; cp "$src" "$dir/movie$i.${src##*.}"; done ;;
    renditions10) # movies worth encoding: the samples' four largest, and 1080p clips made here (H.264, HEVC turned a quarter, HLG): 10 files
      local clips=$work/rendition-clips sources=() hevc=(-c:v libx265 -preset ultrafast -x265-params log-level=error -tag:v hvc1)
      local x265=log-level=error:colorprim=bt2020:colormatrix=bt2020nc:transfer=arib-std-b67
      mkdir -p "$clips"
      [ -f "$clips/h264-1080.mp4" ] || ffmpeg -v error -f lavfi -i testsrc2=size=1920x1080:rate=30:duration=6 -f lavfi -i sine=duration=6 \
        -c:v libx264 -preset ultrafast -pix_fmt yuv420p -c:a aac -shortest "$clips/h264-1080.mp4"
      [ -f "$clips/hlg-1080.mp4" ] || ffmpeg -v error -f lavfi -i testsrc2=size=1920x1080:rate=30:duration=6 "${hevc[@]}" \
        -pix_fmt yuv420p10le -color_primaries bt2020 -colorspace bt2020nc -color_trc arib-std-b67 -x265-params $x265 "$clips/hlg-1080.mp4"
      if [ ! -f "$clips/turned-1080.mov" ]; then
        ffmpeg -v error -f lavfi -i testsrc2=size=1920x1080:rate=30:duration=6 "${hevc[@]}" "$clips/stored.mov"
        ffmpeg -v error -i "$clips/stored.mov" -c copy -metadata:s:v:0 rotate=90 "$clips/turned-1080.mov"; rm "$clips/stored.mov"
      fi
      mapfile -t sources < <(ls "$root"/samples/video/iphone6_with-gps.mov "$root"/samples/video/loci_gps_issue515.mp4 \
        "$root"/samples/video/sample.3gp "$root"/samples/livephoto/train.mov "$clips"/*)
      for i in $(seq 0 9); do src=${sources[$((i % ${#sources[@]}))]}; cp "$src" "$dir/movie$i.${src##*.}"; done ;;
    tiny5000|tiny100000) # many 320 px JPEGs in folders of 1 000 (copies of one, hard-linked across folders: ext4 allows 65 000 links): mediabatch's own cost an item
      local count=${set#tiny} folder
      vips thumbnail "${jpeg_sources[0]}" "$dir/seed.jpg[Q=80]" 320
      mkdir "$dir/f0"
      for i in $(seq 1 1000); do cp "$dir/seed.jpg" "$dir/f0/small$i.jpg"; done
      for folder in $(seq 1 $((count / 1000 - 1))); do cp -al "$dir/f0" "$dir/f$folder"; done
      rm "$dir/seed.jpg" ;;
    tinymeta5000) # 5 000 64 px JPEGs that carry a phone's metadata (6.4 KB of EXIF with GPS and an Apple
      # MakerNote, and XMP), as a library's thumbnails and small exports do: what metadata costs an item
      vips thumbnail "${heic_sources[0]}" "$dir/seed.jpg[Q=80,strip]" 64
      exiftool -q -overwrite_original -TagsFromFile "${heic_sources[0]}" -all:all \
        -TagsFromFile "$root/samples/jpeg/nikon_d5000_xmp_gps_only.jpg" -xmp:all "$dir/seed.jpg"
      mkdir "$dir/f0"
      for i in $(seq 1 1000); do cp "$dir/seed.jpg" "$dir/f0/small$i.jpg"; done
      for folder in 1 2 3 4; do cp -al "$dir/f0" "$dir/f$folder"; done
      rm "$dir/seed.jpg" ;;
    privacy) # every still of the corpus (or the samples), five times over: what a privacy-only job reads
      local stills=() copy
      mapfile -t stills < <(find "$corpus" "$root/samples" -type f \( -iname '*.jp*g' -o -iname '*.heic' -o -iname '*.hif' -o -iname '*.avif' \
        -o -iname '*.png' -o -iname '*.webp' -o -iname '*.tif' -o -iname '*.gif' \) ! -path '*/broken/*' | sort)
      # Named after the path below the corpus or the samples: never a hidden name (a relative corpus
      # path would start with "..").
      for copy in 1 2 3 4 5; do
        for f in "${stills[@]}"; do
          local name=${f#"$corpus"/}; name=${name#"$root"/}
          mkdir -p "$dir/c$copy"; cp "$f" "$dir/c$copy/$(echo "$name" | tr / -)"
        done
      done ;;
    privacysidecars) # the privacy set's stills (hard links), each with an XMP sidecar (darktable's name, a
      # Nikon's XMP with GPS, a rating and keywords) and a Takeout JSON with geoData beside it
      make_inputs privacy
      local photo xmp=$dir/.seed.xmp
      exiftool -q -o "$xmp" -TagsFromFile "$root/samples/jpeg/nikon_d5000_xmp_gps_only.jpg" -xmp:all -XMP-xmp:Rating=4 \
        -XMP-dc:Subject=harbour "$root/samples/jpeg/nikon_d5000_xmp_gps_only.jpg"
      cp -al "$work/inputs/privacy/." "$dir/"
      while IFS= read -r -d '' photo; do
        cp "$xmp" "$photo.xmp"
        printf '{\n  "title": "%s",\n  "photoTakenTime": {"timestamp": "1703439000", "formatted": "24 Dec 2023, 17:30:00 UTC"},\n  "geoData": {"latitude": 48.8584, "longitude": 2.2945, "altitude": 35.0, "latitudeSpan": 0.0, "longitudeSpan": 0.0},\n  "geoDataExif": {"latitude": 48.8584, "longitude": 2.2945, "altitude": 35.0, "latitudeSpan": 0.0, "longitudeSpan": 0.0}\n}\n' \
          "${photo##*/}" > "$photo.json"
      done < <(find "$dir" -type f ! -name '.*' -print0)
      rm -f "$xmp" ;;
    raw27) # 8 × 27 MP DNGs (6000×4500) made by scripts/make-dng.py from the Live Photo still (upscaled), each
      # with a full-size JPEG preview as Canon and Nikon embed one: the corpus holds no real RAW
      "$(./scripts/test-python.sh)" scripts/make-dng.py "${jpeg_sources[0]}" "$dir/seed.dng" --width 6000 --preview 6000 --gps
      for i in $(seq 0 7); do cp "$dir/seed.dng" "$dir/raw$i.dng"; done
      rm "$dir/seed.dng" ;;
    tiny1000000) # a million: the 5 000's files hard-linked 200 times, in folders of 1 000
      make_inputs tiny5000
      for folder in $(seq 0 999); do cp -al "$work/inputs/tiny5000/f$((folder % 5))" "$dir/f$folder"; done ;;
    flat200000) # 200 000 files in one folder, as a camera dump leaves them
      make_inputs tiny5000
      python3 -c 'import os, sys
source, target = sys.argv[1:]
names = sorted(os.listdir(source))
for i in range(200000): os.link(f"{source}/{names[i % len(names)]}", f"{target}/IMG_{i:06}.jpg")' "$work/inputs/tiny5000/f0" "$dir" ;;
    huge) # issue 47: 50 MP, 200 MP and 1-gigapixel JPEG, PNG and 256-tiled TIFF (deflate), enlarged by libvips from a
      # camera photo; HEIC grids of 512-px tiles, as phones write them (Tests/TestSupport/make_heic_grid.py: pillow-heif),
      # of 50 MP, 200 MP (Samsung's 16320×12240) and a 21694×10847 panorama; WebP at 50 MP and 200 MP.
      local seed=$root/samples/jpeg/canon_eos_7d_iptc_city.jpg grid name size width height
      grid="$(python_venv numpy pillow pillow-heif) $root/Tests/TestSupport/make_heic_grid.py 512"
      for size in 50mp:5773:8660 200mp:11547:17320 1gp:25820:38730 heic200:12240:16320 pano:21694:10847; do
        IFS=: read -r name width height <<<"$size"
        vips resize "$seed" "$work/huge.v" "$(bc -l <<<"$width / 600")" --vscale "$(bc -l <<<"$height / 900")"
        case $name in
          heic200) vips copy "$work/huge.v" "$work/huge.png[compression=1]"; $grid "$dir/heic-200mp.heic" "$work/huge.png"
                   vips copy "$work/huge.v" "$dir/webp-200mp.webp[Q=80]" ;;
          pano) vips copy "$work/huge.v" "$work/huge.png[compression=1]"; $grid "$dir/heic-panorama.heic" "$work/huge.png" ;;
          *) vips copy "$work/huge.v" "$dir/jpeg-$name.jpg[Q=90]"
             vips copy "$work/huge.v" "$dir/png-$name.png[compression=1]"
             vips copy "$work/huge.v" "$dir/tiff-$name.tif[tile,tile-width=256,tile-height=256,compression=deflate]"
             if [[ $name == 50mp ]]; then
               vips copy "$work/huge.v" "$work/huge.png[compression=1]"; $grid "$dir/heic-50mp.heic" "$work/huge.png"
               vips copy "$work/huge.v" "$dir/webp-50mp.webp[Q=80]"
             fi ;;
        esac
      done
      rm -f "$work/huge.v" "$work/huge.png" ;;
  esac
  touch "$dir/.done"
}


# timed NAME COMMAND...: runs the command twice, each time from an empty output folder (so no
# state database) unless keep_output is set. The first run is watched by bench/peak-pss.py for the
# peak PSS of all its processes together; the second, unwatched, gives the seconds and the peak
# RSS of the largest process (GNU time). Sampling /proc slows what it watches, by more the more
# processes and memory there are, so no time is taken from a watched run.
timed() {
  local name=$1; shift
  local pid peak=0
  settle
  failed() { echo "$name failed:"; tail -5 "$work/stderr.txt"; return 1; }
  if [[ -z ${keep_output:-} ]]; then
    fresh_output
    "$@" >/dev/null 2>"$work/stderr.txt" &
    pid=$!
    peak=$("$root/bench/peak-pss.py" "$pid")
    wait "$pid" || { failed; return 1; }
    fresh_output
  fi
  local run seconds rss best=
  for ((run = 0; run < ${best_of:-1}; run++)); do
    ((run == 0)) || [[ -n ${keep_output:-} ]] || fresh_output
    /usr/bin/time -f "%e %M" -o "$work/time.txt" "$@" >/dev/null 2>"$work/stderr.txt" || { failed; return 1; }
    read -r seconds rss < "$work/time.txt"
    [[ -n $best ]] && awk -v a="$seconds" -v b="$best" 'BEGIN { exit !(a >= b) }' || best=$seconds
  done
  echo "$name $best $rss $peak"
}

count_inputs() { find "$1" -type f ! -name '.done' | wc -l; }

peers() {
  local set=$1 dir=$work/inputs/$1 n best_of=${BEST_OF:-1}
  n=$(count_inputs "$dir")
  echo
  echo "== $set: $n images, 2048 px, q80, sRGB, orientation applied, $cpus CPUs"
  {
    timed mediabatch "$mediabatch" run bench/pipeline.json --input "$dir" --output "$work/out" --quiet
    timed mediabatch-trusted "$mediabatch" run bench/pipeline-trusted.json --input "$dir" --output "$work/out" --quiet
    # The same with each photo's fingerprint read from the picture it writes (issue 45: ≤ 3% more time).
    timed mediabatch-fingerprint "$mediabatch" run bench/pipeline-fingerprint.json --input "$dir" --output "$work/out" --quiet
    [[ -z ${BASELINE:-} ]] || timed baseline "$BASELINE" run bench/pipeline.json --input "$dir" --output "$work/out" --quiet
    timed vipsthumbnail-per-file bash -c "find '$dir' -type f ! -name .done -print0 | xargs -0 -P$cpus -I{} vipsthumbnail {} -s 2048 --export-profile srgb -o '$work/out/%s.jpg[Q=80]'"
    timed vipsthumbnail-one-process bash -c "find '$dir' -type f ! -name .done -print0 | xargs -0 vipsthumbnail -s 2048 --export-profile srgb -o '$work/out/%s.jpg[Q=80]'"
    timed imagemagick-per-file bash -c "find '$dir' -type f ! -name .done -print0 | xargs -0 -P$cpus -I{} sh -c '/usr/bin/convert \"\$1\" -auto-orient -resize 2048x2048\\> -colorspace sRGB -quality 80 \"$work/out/\$(basename \"\$1\").jpg\"' _ {}"
    timed pillow "$(python_venv pillow pillow-heif)" bench/pillow-resize.py "$work/out" 2048 jpg $(find "$dir" -type f ! -name .done | sort)
    # pyvips-binary's libheif decodes AVIF but not HEVC: it runs on sets without HEIC.
    [[ -n $(find "$dir" -name '*.heic' -print -quit) ]] ||
      timed pyvips-binary "$(python_venv pyvips pyvips-binary)" bench/pyvips-resize.py "$work/out" $(find "$dir" -type f ! -name .done | sort)
    timed decode-only bash -c "find '$dir' -type f ! -name .done -print0 | xargs -0 -P$cpus -n1 bench/decode-only.sh"
    # mediabatch decodes HEIC with libavcodec: its bound is that decoder on the primary image's tiles alone, taken out
    # of each file beforehand (bench/heic-tiles.py), one thread a file, as mediabatch runs it; and the same
    # tiles in one stream a CPU (every file's after the last's), one ffmpeg each: no start-up per file.
    if [[ -n $(find "$dir" -name '*.heic' -print -quit) ]]; then
      rm -rf "$work/tiles" "$work/tile-streams"; mkdir -p "$work/tiles" "$work/tile-streams"
      local i=0
      for f in "$dir"/*.heic; do
        bench/heic-tiles.py "$f" "$work/tiles/$(basename "$f").hevc" || continue
        cat "$work/tiles/$(basename "$f").hevc" >> "$work/tile-streams/$((i % cpus)).hevc"
        i=$((i + 1))
      done
      timed decode-only-libavcodec bash -c "find '$dir' -name '*.jpg' -print0 | xargs -0 -r -P$cpus -n1 bench/decode-only.sh;
        find '$work/tiles' -name '*.hevc' -print0 | xargs -0 -P$cpus -I{} ffmpeg -v error -threads 1 -f hevc -i {} -f null -"
      timed decode-only-libavcodec-1proc bash -c "find '$dir' -name '*.jpg' -print0 | xargs -0 -r -P$cpus -n1 bench/decode-only.sh;
        find '$work/tile-streams' -name '*.hevc' -print0 | xargs -0 -P$cpus -I{} ffmpeg -v error -threads 1 -f hevc -i {} -f null -"
    fi
  } > "$work/$set.txt"
  awk -v n="$n" '
    { name[NR]=$1; rate[NR]=n/$2; rss[NR]=$3/1024; all[NR]=$4/1024 }
    END {
      printf "%-28s %10s %14s %20s %16s\n", "tool", "images/s", "largest process", "all processes, PSS", "mediabatch is"
      for (i = 1; i <= NR; i++)
        printf "%-28s %10.2f %10.0f MiB %16.0f MiB %15.2fx\n", name[i], rate[i], rss[i], all[i], rate[1]/rate[i]
      for (i = 1; i <= NR; i++)
        if (name[i] ~ /^decode-only/)
          printf "mediabatch runs at %.0f%% of the %s bound (decoding alone, all cores)\n", 100 * rate[1] / rate[i], name[i]
    }' "$work/$set.txt"
}

memory() {
  local dir=$work/inputs/mixed48 n
  n=$(count_inputs "$dir")
  mkdir -p "$work/empty"
  echo
  echo "== memory budget: mixed48 ($n images of 48 MP)"
  {
    timed idle-process "$mediabatch" run bench/pipeline.json --input "$work/empty" --output "$work/out" --quiet
    timed "jobs-4-budget-600MiB" "$mediabatch" run bench/pipeline.json --input "$dir" --output "$work/out" --jobs 4 --memory-budget 600MiB --quiet
    timed "jobs-4-budget-4GiB" "$mediabatch" run bench/pipeline.json --input "$dir" --output "$work/out" --jobs 4 --memory-budget 4GiB --quiet
    timed "jobs-2-budget-4GiB" "$mediabatch" run bench/pipeline.json --input "$dir" --output "$work/out" --jobs 2 --memory-budget 4GiB --quiet
    timed "trusted-jobs-4-600MiB" "$mediabatch" run bench/pipeline-trusted.json --input "$dir" --output "$work/out" --jobs 4 --memory-budget 600MiB --quiet
  } > "$work/memory.txt"
  # The idle run ends before its first PSS sample: its figure is the largest process's RSS alone.
  awk -v n="$n" '
    $1 == "idle-process" { printf "%-24s %8s images/s %9s     peak PSS of all processes, largest process RSS %5.0f MiB\n", $1, "-", "-", $3/1024; next }
    { printf "%-24s %8.2f images/s %9.0f MiB peak PSS of all processes, largest process RSS %5.0f MiB\n", $1, n/$2, $4/1024, $3/1024 }' "$work/memory.txt"
}

# once NAME COMMAND...: one run from an empty output folder, watched for the peak PSS of all its
# processes and timed (GNU time: seconds and the largest process's peak RSS) at once, for runs too
# long to make twice. The sampler slows the run by a few percent.
once() {
  local name=$1 pid peak; shift
  rm -rf "$work/out"; mkdir -p "$work/out"
  /usr/bin/time -f "%e %M" -o "$work/time.txt" "$@" >/dev/null 2>"$work/stderr.txt" &
  pid=$!
  peak=$("$root/bench/peak-pss.py" "$pid")
  wait "$pid" || { echo "$name failed:"; tail -5 "$work/stderr.txt"; return 1; }
  read -r seconds rss < "$work/time.txt"
  echo "$name $seconds $rss $peak"
}

# huge: each picture of the set alone, 2048 px JPEG q80 sRGB, mediabatch (its item's estimate from the report)
# against vipsthumbnail on the same file, one run each (once); then 8 of the largest together under
# --memory-budget 1GiB. An item's measured cost, which its estimate is for, is its worker's peak RSS (GNU time's,
# the kernel's high-water mark) less an idle item's (a 0.5 MP JPEG's run: the process itself).
huge() {
  local dir=$work/inputs/huge f name one=$work/huge-one
  echo
  echo "== huge: pictures from 50 MP to 1 Gpx, each alone, 2048 px, q80, sRGB, $cpus CPUs"
  {
    rm -rf "$one"; mkdir -p "$one"; cp "$root/samples/jpeg/canon_eos_7d_iptc_city.jpg" "$one/"
    once idle "$mediabatch" run bench/pipeline.json --input "$one" --output "$work/out" --quiet
    for f in "$dir"/*.*; do
      name=$(basename "$f"); rm -rf "$one"; mkdir -p "$one"; ln "$f" "$one/$name"
      { once "mediabatch-$name" "$mediabatch" run bench/pipeline.json --input "$one" --output "$work/out" --quiet \
          --report "$work/huge-report.json" || true; } | head -1 | tr '\n' ' '
      python3 -c 'import json, sys; item = json.load(open(sys.argv[1]))["items"][0]
print(item.get("estimatedBytes", 0) // 1024, item["status"])' "$work/huge-report.json"
      once "vipsthumbnail-$name" vipsthumbnail "$f" -s 2048 --export-profile srgb -o "$work/out/%s.jpg[Q=80]" || true
    done
  } > "$work/huge.txt"
  awk '
    $1 == "idle" { idle = $3; next }
    $1 ~ /^mediabatch-/ { name = substr($1, 12); secs[name] = $2; rss[name] = $3; peak[name] = $4; estimate[name] = $5; status[name] = $6; order[++n] = name; next }
    $1 ~ /^vipsthumbnail-/ && $2 == "failed:" { next }
    $1 ~ /^vipsthumbnail-/ { name = substr($1, 15); theirs[name] = $2; theirPeak[name] = $4; next }
    END {
      printf "%-20s %10s %14s %8s %12s %14s %13s %14s %10s\n", "picture", "mediabatch", "vipsthumbnail", "ratio", "peak PSS", "vipsthumbnail", "item (−idle)", "estimated", "est/item"
      for (i = 1; i <= n; i++) {
        name = order[i]; item = rss[name] - idle
        ratio = (theirs[name] > 0) ? sprintf("%7.2fx", theirs[name] / secs[name]) : "      -"
        printf "%-20s %8.2f s %12s %8s %8.0f MiB %10.0f MiB %9.0f MiB %10.0f MiB %9.2f %s\n", name, secs[name],
          (theirs[name] > 0 ? sprintf("%.2f s", theirs[name]) : "fails"), ratio, peak[name] / 1024, theirPeak[name] / 1024,
          item / 1024, estimate[name] / 1024, (item > 0 ? estimate[name] / item : 0), (status[name] == "ok" ? "" : status[name])
      }
    }' "$work/huge.txt"
  # Eight at once: the budget decides how many run together; every process counts.
  local batch=$work/huge-batch
  rm -rf "$batch"; mkdir -p "$batch"
  for name in heic-panorama.heic heic-200mp.heic png-1gp.png tiff-1gp.tif; do
    for copy in 1 2; do [ -f "$dir/$name" ] && ln "$dir/$name" "$batch/$copy-$name"; done
  done
  once batch "$mediabatch" run bench/pipeline.json --input "$batch" --output "$work/out" --jobs 2 --memory-budget 1GiB --quiet \
    | awk -v n="$(count_inputs "$batch")" '{ printf "%d of the largest together, --memory-budget 1GiB: %.1f s, peak PSS of all processes %.0f MiB (budget + 15%%: 1178 MiB)\n", n, $2, $4 / 1024 }'
}

# Memory and overhead an item at scale: 5 000 and 100 000 tiny JPEGs, vipsthumbnail in one process
# (shrinking only, as mediabatch's downsample) on the 5 000, what the 100 000-item run left (and
# `status` on ten times its rows), a dry run over a million, and the listing of a 200 000-file folder.
scale() {
  echo
  echo "== scale: 320 px JPEGs in folders of 1 000, 2048 px bound (nothing to shrink), q80, $cpus CPUs"
  {
    for set in tiny5000 tiny100000; do
      make_inputs $set
      once "mediabatch-$set" "$mediabatch" run bench/pipeline.json --input "$work/inputs/$set" --output "$work/out" --quiet --report "$work/scale-report.json"
      ls -l "$work/scale-report.json" | awk -v set=$set '{ print "report-bytes-" set, $5 }' >&3
    done
    scale_state >&3
    once vipsthumbnail-one-process-tiny5000 bash -c "find '$work/inputs/tiny5000' -type f ! -name .done -print0 | xargs -0 vipsthumbnail -s '2048x2048>' --export-profile srgb -o '$work/out/%s.jpg[Q=80]'"
    make_inputs tiny1000000
    once mediabatch-dry-run-tiny1000000 "$mediabatch" run bench/pipeline.json --input "$work/inputs/tiny1000000" --output "$work/out" --dry-run --quiet --report "$work/scale-report.json"
    scale_listing >&3
  } 3> "$work/scale-facts.txt" > "$work/scale.txt"
  awk 'FNR == NR { fact[$1] = $2; factRSS[$1] = $3; next }
       { match($1, /tiny[0-9]+/); n = substr($1, RSTART + 4, RLENGTH - 4)
         name[FNR] = $1; rate[FNR] = n / $2; rss[FNR] = $3 / 1024; pss[FNR] = $4 / 1024
         printf "%-36s %8.1f s %8.1f items/s %8.1f MiB largest process %8.1f MiB all processes (PSS)\n", $1, $2, rate[FNR], rss[FNR], pss[FNR] }
       END {
         printf "100 000 / 5 000 items: largest process %.3fx, all processes %.3fx\n", rss[2] / rss[1], pss[2] / pss[1]
         printf "tiny items: mediabatch %.2fx vipsthumbnail in one process\n", rate[1] / rate[3]
         printf "state database %.0f bytes an item; JSON report %.0f bytes an item\n", fact["state-bytes"] / 100000, fact["report-bytes-tiny100000"] / 100000
         printf "status: %.2f s on 100 000 rows, %.2f s on 1 000 000\n", fact["status-100000"], fact["status-1000000"]
         printf "a folder of 200 000 files listed (lstat, sorted) in %.2f s at %.1f MiB peak RSS; an empty one %.2f s, %.1f MiB\n",
                fact["listing-flat200000"], factRSS["listing-flat200000"] / 1024, fact["listing-empty"], factRSS["listing-empty"] / 1024
       }' "$work/scale-facts.txt" "$work/scale.txt"
}

# The 100 000-item run's state database: its size, and `status` on it and on a copy with ten times its rows.
scale_state() {
  local state=$work/out/.mediabatch/state.sqlite million=$work/million.sqlite copy
  echo "state-bytes $(du -b "$state" | cut -f1)"
  echo "status-100000 $( { /usr/bin/time -f "%e" "$mediabatch" status bench/pipeline.json --output "$work/out" >/dev/null; } 2>&1 | tail -1)"
  cp "$state" "$million"
  for copy in $(seq 1 9); do
    sqlite3 "$million" "CREATE TEMP TABLE i AS SELECT * FROM main.items WHERE input NOT LIKE 'copy%';
      UPDATE i SET input = 'copy$copy/' || input; INSERT INTO main.items SELECT * FROM i;
      CREATE TEMP TABLE o AS SELECT * FROM main.outputs WHERE input NOT LIKE 'copy%';
      UPDATE o SET input = 'copy$copy/' || input, path = 'copy$copy/' || path; INSERT INTO main.outputs SELECT * FROM o;"
  done
  echo "status-1000000 $( { /usr/bin/time -f "%e" "$mediabatch" status bench/pipeline.json --output "$work/out" --state "$million" >/dev/null; } 2>&1 | tail -1)"
  rm "$million"
}

# How long a run takes to list a 200 000-file folder before its first item, and what that holds:
# a pipeline that selects none of the files (listing, lstat and sorting are all it does).
scale_listing() {
  local none=$work/select-none.json
  make_inputs flat200000
  mkdir -p "$work/empty"
  echo '{"version": 1, "input": {"include": ["none/*"]}, "stages": [{"stage": "decode"}, {"stage": "write"}]}' > "$none"
  for dir in "$work/empty" "$work/inputs/flat200000"; do
    /usr/bin/time -f "%e %M" -o "$work/time.txt" "$mediabatch" run "$none" --input "$dir" --output "$work/out" --quiet 2>/dev/null
    echo "listing-$(basename "$dir") $(cat "$work/time.txt")"
  done
}

# Small photos with a phone's metadata: mediabatch's cost an item, metadata included, against
# vipsthumbnail in one process (libvips' own, which carries EXIF and XMP through libexif).
tinymeta() {
  local dir=$work/inputs/tinymeta5000 n
  n=$(count_inputs "$dir")
  echo
  echo "== tiny photos with metadata: $n 64 px JPEGs with 6.4 KB of EXIF and XMP, 2048 px bound (nothing to shrink), q80, $cpus CPUs"
  {
    timed mediabatch "$mediabatch" run bench/pipeline.json --input "$dir" --output "$work/out" --quiet
    timed mediabatch-trusted "$mediabatch" run bench/pipeline-trusted.json --input "$dir" --output "$work/out" --quiet
    [[ -z ${BASELINE:-} ]] || timed baseline "$BASELINE" run bench/pipeline.json --input "$dir" --output "$work/out" --quiet
    timed vipsthumbnail-one-process bash -c "find '$dir' -type f ! -name .done -print0 | xargs -0 vipsthumbnail -s '2048x2048>' --export-profile srgb -o '$work/out/%s.jpg[Q=80]'"
  } > "$work/tinymeta.txt"
  ratios "$n" "$work/tinymeta.txt"
}

# The privacy-only job (stripLocation, write: every still copied, its location removed in place)
# against exiftool removing the same, both over the same files in one run.
privacy() {
  local dir=$work/inputs/privacy n
  n=$(count_inputs "$dir")
  echo
  echo "== privacy only: $n stills (the corpus' and the samples', five times), location removed, no pixel touched, $cpus CPUs"
  {
    timed mediabatch "$mediabatch" run bench/privacy.json --input "$dir" --output "$work/out" --quiet
    timed mediabatch-trusted "$mediabatch" run bench/privacy-trusted.json --input "$dir" --output "$work/out" --quiet
    # exiftool exits 1 for the files it cannot write (WebP, with 12.57): the others are written.
    timed exiftool bash -c "cd '$dir' && exiftool -q -q -r -location:all= -gps:all= -o '$work/out/%d/' . || true"
  } > "$work/privacy.txt"
  ratios "$n" "$work/privacy.txt"
}

# ratios N FILE: items/s of each line of a `timed` listing, and mediabatch's (the first line's) ratio to each.
# The privacy-only job over the same stills with an XMP sidecar and a Takeout JSON beside each (both
# copied, their location removed) against the same job over the stills alone: what sidecars cost.
privacy_sidecars() {
  local n
  n=$(count_inputs "$work/inputs/privacy")
  echo
  echo "== privacy only with sidecars: $n stills, each with an XMP and a Takeout JSON beside it (copied, location removed), $cpus CPUs"
  # Rounds of one run each, the two alternated, the best of each kept (BEST_OF rounds, 5 by default): a
  # run takes two or three seconds, and a moment's load elsewhere would decide a ratio of two such runs.
  local round
  for ((round = 0; round < ${BEST_OF:-5}; round++)); do
    best_of=1 timed mediabatch+sidecars "$mediabatch" run bench/privacy.json --input "$work/inputs/privacysidecars" --output "$work/out" --quiet
    best_of=1 timed mediabatch "$mediabatch" run bench/privacy.json --input "$work/inputs/privacy" --output "$work/out" --quiet
  done | fastest > "$work/privacysidecars.txt"
  ratios "$n" "$work/privacysidecars.txt"
}

# fastest: of `timed` lines, each name's fastest, in the order the names first came.
fastest() {
  awk '!($1 in best) { order[++n] = $1 } !($1 in best) || $2 < best[$1] { best[$1] = $2; line[$1] = $0 }
       END { for (i = 1; i <= n; i++) print line[order[i]] }'
}

ratios() {
  awk -v n="$1" '
    { name[NR]=$1; rate[NR]=n/$2; rss[NR]=$3/1024; all[NR]=$4/1024 }
    END {
      printf "%-28s %10s %14s %20s %16s\n", "tool", "items/s", "largest process", "all processes, PSS", "mediabatch is"
      for (i = 1; i <= NR; i++)
        printf "%-28s %10.1f %10.0f MiB %16.0f MiB %15.2fx\n", name[i], rate[i], rss[i], all[i], rate[1]/rate[i]
    }' "$2"
}

# What durable publish costs (--durability full, the default: a batch's outputs synced with one
# syncfs before their renames, their folders before the state database records them) over none (no syncs), on the
# 12 MP JPEG and the tiny-photo sets: five rounds each, the two interleaved, the median's ratio.
durability() {
  local set dir n round mode
  for set in ${DURABILITY_SETS:-jpeg12 tinymeta5000}; do
    dir=$work/inputs/$set
    n=$(count_inputs "$dir")
    echo
    echo "== durability: $n files of $set, --durability full against none, 5 interleaved rounds, $cpus CPUs"
    for round in 1 2 3 4 5; do
      for mode in full none; do
        rm -rf "$work/out"; sync
        /usr/bin/time -f "%e" -o "$work/time.txt" "$mediabatch" run bench/pipeline.json --input "$dir" --output "$work/out" --quiet --durability "$mode"
        echo "$mode $(cat "$work/time.txt")"
      done
    done > "$work/durability.txt"
    for mode in full none; do
      echo "$mode $(awk -v m=$mode '$1 == m { print $2 }' "$work/durability.txt" | sort -n | sed -n 3p)" \
        "$(awk -v m=$mode '$1 == m { printf "%s ", $2 }' "$work/durability.txt")"
    done | awk -v n="$n" '
      { median[$1] = $2; printf "%-5s %8.2f items/s (median; runs:", $1, n / $2; for (i = 3; i <= NF; i++) printf " %s", $i; print " s)" }
      END { printf "full / none: %.3fx the time\n", median["full"] / median["none"] }'
  done
}

classify() {
  local dir=$work/inputs/classify10000 n
  n=$(count_inputs "$dir")
  echo
  echo "== classification: --dry-run over $n files (bundled samples and kind fixtures)"
  {
    timed mediabatch-dry-run "$mediabatch" run bench/classify.json --input "$dir" --output "$work/out" --dry-run --quiet
    timed exiftool-fast2 exiftool -fast2 -q -r -json "$dir"
  } > "$work/classify.txt"
  awk -v n="$n" '
    { name[NR]=$1; rate[NR]=n/$2; rss[NR]=$3/1024 }
    END { for (i = 1; i <= NR; i++) printf "%-22s %9.1f files/s %8.0f MiB peak RSS %8.2fx\n", name[i], rate[i], rss[i], rate[1]/rate[i] }' "$work/classify.txt"
}

incremental() {
  local dir=$work/inputs/jpeg12 n
  n=$(count_inputs "$dir")
  echo
  echo "== incremental: jpeg12 ($n images), a first run, the same run again, again after touching every input"
  rm -rf "$work/out"; mkdir -p "$work/out"
  {
    keep_output=1 timed first-run "$mediabatch" run bench/pipeline.json --input "$dir" --output "$work/out" --quiet
    keep_output=1 timed unchanged-run "$mediabatch" run bench/pipeline.json --input "$dir" --output "$work/out" --quiet
    find "$dir" -type f -exec touch {} +
    keep_output=1 timed touched-run "$mediabatch" run bench/pipeline.json --input "$dir" --output "$work/out" --quiet
  } > "$work/incremental.txt"
  awk '{ s[NR]=$2; printf "%-14s %8.2f s %8.0f MiB peak RSS %8.1f%% of the first run\n", $1, $2, $3/1024, 100*$2/s[1] }' "$work/incremental.txt"
}

# python_venv PACKAGE...: the Python of a venv holding the peers' packages from PyPI (never a run-time
# dependency), one venv per package set and Python version: make bench-trixie runs this in a Debian 13
# root over the same checkout. pyvips is installed without pkg-config in sight, so that it never builds
# its API module against the system's libvips-dev (which needs a C compiler the Debian 13 root does not
# have, and would load Debian's libvips instead of the wheel's); pyvips-binary is installed again after
# it all the same, for venvs made before.
python_venv() {
  local venv name
  name=$(IFS=-; echo "$*")
  venv=$work/venv-$name-python$(python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')
  if [ ! -f "$venv/.done" ]; then
    rm -rf "$venv"; python3 -m venv "$venv"
    PKG_CONFIG_LIBDIR=/nonexistent PKG_CONFIG_PATH= "$venv/bin/pip" install -q "$@" >&2
    [[ $name != *pyvips-binary* ]] || "$venv/bin/pip" install -q --force-reinstall --no-deps pyvips-binary >&2
    touch "$venv/.done"
  fi
  echo "$venv/bin/python"
}

# variants SET: [640, 1280, 2048] × [webp, jpeg], q80, sRGB, upright: six outputs a photo. Each row
# also says how many bytes a photo's outputs took: the WebP effort row trades bytes for time.
variants_of() {
  local set=$1 dir=$work/inputs/$1 n python
  n=$(count_inputs "$dir")
  python=$(python_venv pillow pillow-heif)
  echo
  echo "== variants, $set: $n photos × [640, 1280, 2048] × [webp, jpeg], q80, sRGB, upright ($((n * 6)) files), $cpus CPUs"
  {
    with_bytes mediabatch "$mediabatch" run bench/variants.json --input "$dir" --output "$work/out" --quiet
    with_bytes mediabatch-webp-effort-2 "$mediabatch" run bench/variants-webp-effort-2.json --input "$dir" --output "$work/out" --quiet
    [[ -z ${BASELINE:-} ]] || with_bytes baseline "$BASELINE" run bench/variants.json --input "$dir" --output "$work/out" --quiet
    with_bytes vipsthumbnail-per-variant bash -c "find '$dir' -type f ! -name .done -print0 | xargs -0 -P$cpus -I{} bench/vipsthumbnail-variants.sh '$work/out' {}"
    with_bytes vipsthumbnail-one-process bash -c "for size in 2048 1280 640; do for ext in webp jpg; do
      find '$dir' -type f ! -name .done -print0 | xargs -0 vipsthumbnail -s \$size --export-profile srgb -o '$work/out/%s-'\$size.\$ext'[Q=80]'; done; done"
    with_bytes pillow "$python" bench/pillow-resize.py "$work/out" 2048,1280,640 webp,jpg $(find "$dir" -type f ! -name .done | sort)
  } > "$work/variants-$set.txt"
  awk -v n="$n" '
    { name[NR]=$1; rate[NR]=n/$2; rss[NR]=$3/1024; all[NR]=$4/1024; kib[NR]=$5/1024/n }
    END {
      printf "%-28s %10s %14s %20s %14s %16s\n", "tool", "photos/s", "largest process", "all processes, PSS", "KiB a photo", "mediabatch is"
      for (i = 1; i <= NR; i++)
        printf "%-28s %10.2f %10.0f MiB %16.0f MiB %14.0f %15.2fx\n", name[i], rate[i], rss[i], all[i], kib[i], rate[1]/rate[i]
    }' "$work/variants-$set.txt"
}

# against_pyvips SET PIPELINE SCRIPT WHAT: mediabatch and the pyvips script a sharp user's calls make
# (libvips 8.18 from pyvips-binary, one process per core), on the same files, same run.
against_pyvips() {
  local set=$1 dir=$work/inputs/$1 n
  n=$(count_inputs "$dir")
  echo
  echo "== $set: $n files, $4, $cpus CPUs"
  {
    with_bytes mediabatch "$mediabatch" run "$2" --input "$dir" --output "$work/out" --quiet
    with_bytes pyvips-binary "$(python_venv pyvips pyvips-binary)" "$3" "$work/out" $(find "$dir" -type f ! -name .done | sort)
  } > "$work/$set-pyvips.txt"
  awk -v n="$n" '
    { name[NR]=$1; rate[NR]=n/$2; rss[NR]=$3/1024; all[NR]=$4/1024; kib[NR]=$5/1024/n }
    END {
      printf "%-16s %10s %14s %20s %12s %16s\n", "tool", "files/s", "largest process", "all processes, PSS", "KiB a file", "mediabatch is"
      for (i = 1; i <= NR; i++)
        printf "%-16s %10.2f %10.0f MiB %16.0f MiB %12.0f %15.2fx\n", name[i], rate[i], rss[i], all[i], kib[i], rate[1]/rate[i]
    }' "$work/$set-pyvips.txt"
}

# timed, then the bytes of the files the command left in $work/out (mediabatch's own folder aside).
with_bytes() {
  local line
  line=$(timed "$@") || { echo "$line" >&2; return 1; }
  echo "$line $(du -sb --exclude=.mediabatch "$work/out" | cut -f1)"
}

# AVIF against JPEG at [640, 1280]: seconds a photo and bytes, on the JPEG set; and 48 MP HEICs to
# six variants with 4 jobs in a 600 MiB budget.
variants_avif() {
  local dir=$work/inputs/jpeg12 n
  n=$(count_inputs "$dir")
  echo
  echo "== variants, AVIF against JPEG: $n photos × [640, 1280]; 48 MP HEIC × 6 variants, --jobs 4 --memory-budget 600MiB"
  for format in avif jpeg; do
    timed "$format" "$mediabatch" run "bench/variants-$format.json" --input "$dir" --output "$work/out" --quiet
    echo "bytes $(du -sb --exclude=.mediabatch "$work/out" | cut -f1)"
  done > "$work/variants-avif.txt"
  rm -rf "$work/heic48"; mkdir -p "$work/heic48"; cp "$work"/inputs/mixed48/bigh*.heic "$work/heic48/"
  timed heic48-jobs-4-600MiB "$mediabatch" run bench/variants.json --input "$work/heic48" --output "$work/out" --jobs 4 --memory-budget 600MiB --quiet >> "$work/variants-avif.txt"
  awk -v n="$n" '
    $1 == "bytes" { bytes[k] = $2; next }
    { k = $1; secs[k] = $2; pss[k] = $4/1024 }
    END {
      for (f in bytes) printf "%-6s %6.3f s a photo (2 CPUs) %9.0f KiB a photo %6.0f MiB peak PSS\n", f, secs[f]*2/n, bytes[f]/1024/n, pss[f]
      printf "avif/jpeg: %.2fx the time, %.2fx the bytes\n", secs["avif"]/secs["jpeg"], bytes["avif"]/bytes["jpeg"]
      printf "48 MP HEIC, 6 variants each, --jobs 4 --memory-budget 600MiB: %.2f s, %.0f MiB peak PSS of all processes\n", secs["heic48-jobs-4-600MiB"], pss["heic48-jobs-4-600MiB"]
    }' "$work/variants-avif.txt"
}

# hdr SET: what "hdr": "keep" costs over "drop", for the 2048 px JPEG pipeline and the six variants, and on
# the Ultra HDR JPEG set pyvips-binary's libvips 8.18 doing the 2048 px JPEG with its own gain-map support.
# Each configuration runs once watched (peak PSS of all processes; the outputs are then counted: how many
# JPEGs libvips 8.18 reads as Ultra HDR), then HDR_ROUNDS (5) timed rounds, the configurations interleaved
# in each round so that a slow spell on the machine falls on all of them; the median round is reported.
hdr() {
  local set=$1 dir=$work/inputs/$1 n python configs round name
  n=$(count_inputs "$dir")
  python=$(./scripts/test-python.sh)
  configs=(2048-jpeg-keep 2048-jpeg-drop variants-keep variants-drop)
  [[ $set != uhdr100 ]] || configs+=(pyvips-8.18-1-process pyvips-8.18-2-processes pyvips-8.18-drop-2-processes)
  echo
  case $set in
    hdrheic20) echo "== hdr, $set: $n × 12 MP iPhone HEIC (4032×3024, Apple gain map), hdr keep vs drop, $cpus CPUs"
               "$python" bench/pyvips-uhdr.py --check "$hdr_heic" | sed "s|$corpus/||; s|$root/||" ;;
    uhdr100) echo "== hdr, $set: $n × Ultra HDR JPEG (3840×2160), hdr keep vs drop, and libvips 8.18 (pyvips-binary), $cpus CPUs" ;;
  esac
  hdr_command() {
    case $1 in
      2048-jpeg-keep|2048-jpeg-drop) cmd=("$mediabatch" run "bench/hdr-2048-${1#2048-jpeg-}.json" --input "$dir" --output "$work/out" --quiet) ;;
      variants-keep|variants-drop) cmd=("$mediabatch" run "bench/hdr-$1.json" --input "$dir" --output "$work/out" --quiet) ;;
      pyvips-8.18-1-process) cmd=("$python" bench/pyvips-uhdr.py --jobs 1 "$work/out" "$dir"/*.jpg) ;;
      pyvips-8.18-2-processes) cmd=("$python" bench/pyvips-uhdr.py --jobs 2 "$work/out" "$dir"/*.jpg) ;;
      pyvips-8.18-drop-2-processes) cmd=("$python" bench/pyvips-uhdr.py --jobs 2 --drop "$work/out" "$dir"/*.jpg) ;;
    esac
  }
  {
    for name in "${configs[@]}"; do
      hdr_command "$name"
      rm -rf "$work/out"; mkdir -p "$work/out"
      "${cmd[@]}" >/dev/null 2>"$work/stderr.txt" &
      local pid=$! peak
      peak=$("$root/bench/peak-pss.py" "$pid")
      wait "$pid" || { echo "$name failed:" >&2; tail -5 "$work/stderr.txt" >&2; return 1; }
      echo "$name watched $peak $(find "$work/out" -name '*.jpg' | wc -l) $("$python" -c 'import sys, pyvips
print(sum(pyvips.Image.new_from_file(f).get("vips-loader") == "uhdrload" for f in sys.argv[1:]))' $(find "$work/out" -name '*.jpg'))"
    done
    for round in $(seq 1 "${HDR_ROUNDS:-5}"); do
      for name in "${configs[@]}"; do
        hdr_command "$name"
        rm -rf "$work/out"; mkdir -p "$work/out"
        /usr/bin/time -f "%e %M" -o "$work/time.txt" "${cmd[@]}" >/dev/null 2>"$work/stderr.txt" ||
          { echo "$name failed:" >&2; tail -5 "$work/stderr.txt" >&2; return 1; }
        echo "$name timed $(cat "$work/time.txt") $(du -sb --exclude=.mediabatch "$work/out" | cut -f1)"
      done
    done
  } > "$work/hdr-$set.txt"
  python3 - "$n" "$work/hdr-$set.txt" <<'PY'
import statistics, sys
n, rows = int(sys.argv[1]), {}
for line in open(sys.argv[2]):
    name, kind, *values = line.split()
    row = rows.setdefault(name, {"seconds": [], "rss": 0})
    if kind == "watched":
        row["pss"], row["jpegs"], row["uhdr"] = int(values[0]), int(values[1]), int(values[2])
    else:
        row["seconds"].append(float(values[0])); row["rss"] = max(row["rss"], int(values[1])); row["bytes"] = int(values[2])
for row in rows.values():
    row["median"] = statistics.median(row["seconds"])
print(f"{'configuration':<30} {'items/s':>8} {'runs (s)':>32} {'largest process':>15} {'all processes, PSS':>19} {'KiB an item':>12} {'Ultra HDR JPEGs':>16}")
for name, row in rows.items():
    runs = " ".join(f"{s:.2f}" for s in row["seconds"])
    print(f"{name:<30} {n / row['median']:>8.2f} {runs:>32} {row['rss'] / 1024:>11.0f} MiB {row['pss'] / 1024:>15.0f} MiB"
          f" {row['bytes'] / 1024 / n:>12.0f} {row['uhdr']:>9} of {row['jpegs']}")
for what in ("2048-jpeg", "variants"):
    keep, drop = rows[f"{what}-keep"], rows[f"{what}-drop"]
    print(f"keep/drop, {what}: {keep['median'] / drop['median']:.2f}x the time, {keep['bytes'] / drop['bytes']:.2f}x the bytes,"
          f" {keep['pss'] / drop['pss']:.2f}x the peak PSS")
if "pyvips-8.18-2-processes" in rows:
    mb = rows["2048-jpeg-keep"]["median"]
    for name in ("pyvips-8.18-1-process", "pyvips-8.18-2-processes"):
        print(f"2048 JPEG with gain maps: mediabatch is {rows[name]['median'] / mb:.2f}x {name}")
    keep, drop = rows["pyvips-8.18-2-processes"], rows["pyvips-8.18-drop-2-processes"]
    print(f"keep/drop, pyvips 8.18 (2 processes): {keep['median'] / drop['median']:.2f}x the time, {keep['bytes'] / drop['bytes']:.2f}x the bytes")
PY
}

# Posters: mediabatch's poster (auto, and at 10% as ffmpegthumbnailer takes it; 1280 px, JPEG q80;
# "movie": "drop", so that each tool writes one JPEG a movie and nothing else) against ffmpegthumbnailer
# and the ffmpeg CLI with Immich's keyframe chain (skip non-keyframes, the thumbnail filter over 12 of
# them, the same tone map for HDR), each per file with xargs -P, same sizes; and two bounds, what any
# tool must at least do with the same libraries (bench/poster-bound.sh): each movie's keyframe near 10%
# decoded, then also shrunk to 1280 px, one ffmpeg a CPU with no start-up per movie.
posters() {
  local dir=$work/inputs/posters20 n
  n=$(count_inputs "$dir")
  echo
  echo "== posters: $n movies (the corpus' and 1080p/4K HEVC clips, two of them HDR), 1280 px JPEG, $cpus CPUs"
  local tonemap="zscale=t=linear:npl=100,format=gbrpf32le,zscale=p=bt709,tonemap=hable:desat=0,zscale=t=iec61966-2-1:m=bt709:r=pc"
  # Each tool takes about a second here: the best of five, so that a moment's load elsewhere does not decide.
  local best_of=5
  {
    timed mediabatch "$mediabatch" run bench/posters.json --input "$dir" --output "$work/out" --quiet
    timed mediabatch-at-10% "$mediabatch" run bench/posters-10pct.json --input "$dir" --output "$work/out" --quiet
    timed ffmpegthumbnailer bash -c "find '$dir' -type f ! -name .done -print0 | xargs -0 -P$cpus -I{} sh -c 'ffmpegthumbnailer -i \"\$1\" -o \"$work/out/\$(basename \"\$1\").jpg\" -s 1280 -q 8' _ {}"
    timed ffmpeg-immich-chain bash -c "find '$dir' -type f ! -name .done -print0 | xargs -0 -P$cpus -I{} sh -c '
      hdr=\$(ffprobe -v error -select_streams v:0 -show_entries stream=color_transfer -of csv=p=0 \"\$1\")
      case \$hdr in smpte2084|arib-std-b67) tm=\",$tonemap\" ;; *) tm= ;; esac
      ffmpeg -v error -skip_frame nokey -i \"\$1\" -vf \"thumbnail=12\$tm,scale=1280:1280:force_original_aspect_ratio=decrease\" -frames:v 1 -update 1 -q:v 4 -y \"$work/out/\$(basename \"\$1\").jpg\"' _ {}"
    bench/poster-bound.sh "$dir" "$cpus" decode > "$work/poster-bound-decode.txt"
    bench/poster-bound.sh "$dir" "$cpus" > "$work/poster-bound-scale.txt"
    timed bound-decode bash -c "xargs -P$cpus -d '\n' -I{} bash -c {} < '$work/poster-bound-decode.txt'"
    timed bound-decode+scale bash -c "xargs -P$cpus -d '\n' -I{} bash -c {} < '$work/poster-bound-scale.txt'"
  } > "$work/posters.txt"
  awk -v n="$n" '
    { name[NR]=$1; rate[NR]=n/$2; rss[NR]=$3/1024; all[NR]=$4/1024 }
    END {
      printf "%-24s %10s %14s %20s %16s\n", "tool", "movies/s", "largest process", "all processes, PSS", "mediabatch is"
      for (i = 1; i <= NR; i++)
        printf "%-24s %10.2f %10.0f MiB %16.0f MiB %15.2fx\n", name[i], rate[i], rss[i], all[i], rate[1]/rate[i]
      for (i = 1; i <= NR; i++) if (name[i] ~ /^(ffmpegthumbnailer|ffmpeg-immich-chain)$/ && rate[i] > faster) faster = rate[i]
      for (i = 1; i <= NR; i++) if (name[i] == "bound-decode+scale") bound = rate[i]
      printf "2x the faster peer is %.2f movies/s: %.0f%% of the decode+scale bound (one ffmpeg a CPU, no tone map, no encode)\n", 2 * faster, 100 * 2 * faster / bound
    }' "$work/posters.txt"
}

# H.264 web renditions (at most 1280 px, never upscaled, CRF 23, preset medium, High, AAC 128 kb/s, +faststart,
# HDR tone-mapped as Immich does, every stream re-encoded): mediabatch against the ffmpeg CLI with the same
# settings run per file by xargs -P (each ffmpeg with its own default threads); the outputs' total size beside
# each, which should agree within 5%.
renditions() {
  local dir=$work/inputs/renditions10 n
  n=$(count_inputs "$dir")
  echo
  echo "== renditions: $n movies (the samples' and 1080p clips: H.264, HEVC turned a quarter, HLG) → H.264 1280 px CRF 23, $cpus CPUs"
  local tonemap="zscale=t=linear:npl=100,format=gbrpf32le,zscale=p=bt709,tonemap=hable:desat=0,zscale=t=bt709:m=bt709:r=tv"
  local size="scale=w=min(1280\\,iw):h=min(1280\\,ih):force_original_aspect_ratio=decrease:force_divisible_by=2"
  {
    timed mediabatch "$mediabatch" run bench/renditions.json --input "$dir" --output "$work/out" --quiet
    echo "bytes $(find "$work/out" -name '*.mp4' -printf '%s\n' | awk '{ s += $1 } END { print s }')"
    timed ffmpeg-cli bash -c "find '$dir' -type f ! -name .done -print0 | xargs -0 -P$cpus -I{} sh -c '
      hdr=\$(ffprobe -v error -select_streams v:0 -show_entries stream=color_transfer -of csv=p=0 \"\$1\")
      case \$hdr in smpte2084|arib-std-b67) vf=\"$size,$tonemap\" ;; *) vf=\"$size\" ;; esac
      ffmpeg -v error -y -i \"\$1\" -map 0:v:0 -map 0:a:0? -vf \"\$vf,format=yuv420p\" -c:v libx264 -crf 23 -preset medium -profile:v high \
        -c:a aac -b:a 128k -movflags +faststart \"$work/out/\$(basename \"\$1\").mp4\"' _ {}"
    echo "bytes $(find "$work/out" -name '*.mp4' -printf '%s\n' | awk '{ s += $1 } END { print s }')"
  } > "$work/renditions.txt"
  awk -v n="$n" '
    $1 == "bytes" { bytes[NR - 1] = $2; next }
    { name[NR]=$1; rate[NR]=n/$2; rss[NR]=$3/1024; all[NR]=$4/1024; row[++rows]=NR }
    END {
      printf "%-14s %10s %14s %20s %14s %16s\n", "tool", "movies/s", "largest process", "all processes, PSS", "output", "mediabatch is"
      for (k = 1; k <= rows; k++) { i = row[k]
        printf "%-14s %10.2f %10.0f MiB %16.0f MiB %10.1f MiB %15.2fx\n", name[i], rate[i], rss[i], all[i], bytes[i]/1048576, rate[row[1]]/rate[i] }
    }' "$work/renditions.txt"
}

# Camera RAW to a 2048 px JPEG an item: mediabatch's preview (`auto`) against extracting it with exiftool then
# vipsthumbnail (what Immich's extractEmbedded does), its half-size develop against dcraw_emu -h then
# vipsthumbnail, and its full develop (to 4096 px) against dcraw_emu then vipsthumbnail; the peers per file, all CPUs.
raw() {
  local dir=$work/inputs/raw27 n peer
  n=$(count_inputs "$dir")
  peer='f=$1 size=$2 out=$3; shift 3; base=$out/$(basename "$f")'
  echo
  echo "== raw: $n × 27 MP DNG (6000×4500, full-size JPEG preview) → JPEG q80, $cpus CPUs"
  {
    timed mediabatch-auto-2048 "$mediabatch" run bench/raw-auto.json --input "$dir" --output "$work/out" --quiet
    timed exiftool-preview-2048 bash -c "find '$dir' -type f ! -name .done -print0 | xargs -0 -P$cpus -I{} sh -c '$peer
      exiftool -b -PreviewImage \"\$f\" > \"\$base.preview.jpg\" && vipsthumbnail \"\$base.preview.jpg\" -s \$size -o \"\$base.jpg[Q=80]\" && rm \"\$base.preview.jpg\"' _ {} 2048 '$work/out'"
    timed mediabatch-develop-2048 "$mediabatch" run bench/raw-develop.json --input "$dir" --output "$work/out" --quiet
    timed dcraw_emu-h-2048 bash -c "find '$dir' -type f ! -name .done -print0 | xargs -0 -P$cpus -I{} sh -c '$peer
      dcraw_emu -w -o 1 -q 3 -h -Z \"\$base.ppm\" \"\$f\" && vipsthumbnail \"\$base.ppm\" -s \$size -o \"\$base.jpg[Q=80]\" && rm \"\$base.ppm\"' _ {} 2048 '$work/out'"
    timed mediabatch-develop-4096 "$mediabatch" run bench/raw-develop-4096.json --input "$dir" --output "$work/out" --quiet
    timed dcraw_emu-4096 bash -c "find '$dir' -type f ! -name .done -print0 | xargs -0 -P$cpus -I{} sh -c '$peer
      dcraw_emu -w -o 1 -q 3 -Z \"\$base.ppm\" \"\$f\" && vipsthumbnail \"\$base.ppm\" -s \$size -o \"\$base.jpg[Q=80]\" && rm \"\$base.ppm\"' _ {} 4096 '$work/out'"
  } > "$work/raw.txt"
  awk -v n="$n" '
    { name[NR]=$1; secs[NR]=$2; rss[NR]=$3/1024; all[NR]=$4/1024 }
    END {
      printf "%-26s %10s %16s %20s\n", "tool", "items/s", "largest process", "all processes, PSS"
      for (i = 1; i <= NR; i++) printf "%-26s %10.2f %12.0f MiB %16.0f MiB\n", name[i], n/secs[i], rss[i], all[i]
      printf "auto (preview) / exiftool + vipsthumbnail: %.2fx\n", secs[2]/secs[1]
      printf "develop, half size / dcraw_emu -h + vipsthumbnail: %.2fx\n", secs[4]/secs[3]
      printf "develop, full size / dcraw_emu + vipsthumbnail: %.2fx\n", secs[6]/secs[5]
    }' "$work/raw.txt"
}

for set in $sets; do
  case $set in
    jpeg12|heic12|mixed48) make_inputs $set; peers $set ;;
    memory) make_inputs mixed48; memory ;;
    scale) scale ;;
    classify) make_inputs classify10000; classify ;;
    incremental) make_inputs jpeg12; incremental ;;
    variants) make_inputs jpeg12; make_inputs heic12; make_inputs mixed48; variants_of heic12; variants_of jpeg12; variants_avif ;;
    tinymeta) make_inputs tinymeta5000; tinymeta ;;
    durability) make_inputs jpeg12; make_inputs tinymeta5000; durability ;;
    privacy) make_inputs privacy; privacy ;;
    privacysidecars) make_inputs privacysidecars; privacy_sidecars ;;
    posters) make_inputs posters20; posters ;;
    renditions) make_inputs renditions10; renditions ;;
    cover) make_inputs jpeg12
           against_pyvips jpeg12 bench/cover.json bench/pyvips-cover.py "1200×630 and 400×400 cover at attention (smartcrop), JPEG q80, sRGB" ;;
    animation) make_inputs gif40
               against_pyvips gif40 bench/animation.json bench/pyvips-animation.py "animated GIF → animated WebP, every frame, 320 px, q80, effort 4" ;;
    raw) make_inputs raw27; raw ;;
    huge) make_inputs huge; huge ;;
    hdr) make_inputs hdrheic20; hdr hdrheic20
         if [ -n "$hdr_jpeg" ]; then make_inputs uhdr100; hdr uhdr100; else echo "(no $corpus/jpeg/ultra-hdr.jpg: the Ultra HDR JPEG half is skipped)"; fi ;;
  esac
  empty_trash
done
