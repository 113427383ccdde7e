#!/usr/bin/env bash
# Runs pipelines/share-safe.json (downsample, HEIC/AVIF/TIFF → JPEG, stripLocation) over a
# folder of media — by default the whole shared corpus — and checks every output the way a
# privacy reviewer would, with exiftool and ffprobe rather than with mediabatch's own code:
#   - no location: `exiftool -a -G1 -location:all -gps:all` finds nothing;
#   - kept: Make, Model, DateTimeOriginal, CreationDate, Copyright and the Live Photo identifier
#     (Apple MakerNote MediaGroupUUID in stills, Keys:ContentIdentifier in movies) where the input had them;
#   - videos: same streams and duration as the input (ffprobe), every audio/video stream decodes
#     (or fails exactly as the input does).
# Prints the counts; exits 1 if any check failed.
# Usage: scripts/check-location-privacy.sh [INPUT_FOLDER]   (needs a release build: make release)
set -uo pipefail
cd "$(dirname "$0")/.."
input=$(realpath "${1:-../shared/corpus}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
binary=.build/release/mediabatch
[ -x "$binary" ] || { echo "build first: make release" >&2; exit 2; }

"$binary" run pipelines/share-safe.json --input "$input" --output "$work/out" --report "$work/report.json" --quiet
echo "mediabatch exit code $? (1 = some inputs could not be read; they are listed in the report)"

probe() { ffprobe -v error -show_entries stream=index,codec_type,codec_tag_string,duration:format=duration -of compact "$1"; }
decode() { ffmpeg -nostdin -v error -i "$1" -map 0:v? -map 0:a? -f null - 2>&1; }

kept_tags=(-Make -Model -DateTimeOriginal -CreationDate -Copyright -MediaGroupUUID -ContentIdentifier)
outputs=0 with_location_in=0 location_left=0 tags_lost=0 videos=0 video_mismatch=0 video_decode_errors=0
# The list comes in on descriptor 3: exiftool, ffprobe and ffmpeg all read stdin.
while IFS= read -r -d '' -u 3 output; do
  relative=${output#"$work/out/"}
  stem=${relative%.*}
  source="$input/$relative"
  [ -f "$source" ] || source=$(find "$input/$(dirname "$relative")" -maxdepth 1 -type f -name "$(basename "$stem").*" | head -1)
  outputs=$((outputs + 1))
  [ -n "$(exiftool -q -q -a -G1 -s -location:all -gps:all "$source")" ] && with_location_in=$((with_location_in + 1))
  left=$(exiftool -q -q -a -G1 -s -location:all -gps:all "$output")
  if [ -n "$left" ]; then
    location_left=$((location_left + 1)); echo "LOCATION LEFT in $relative:"; echo "$left" | sed 's/^/    /'
  fi
  missing=$(comm -23 <(exiftool -q -q -s -s "${kept_tags[@]}" "$source" | sort) <(exiftool -q -q -s -s "${kept_tags[@]}" "$output" | sort))
  if [ -n "$missing" ]; then
    tags_lost=$((tags_lost + 1)); echo "TAGS LOST in $relative:"; echo "$missing" | sed 's/^/    /'
  fi
  case "$relative" in
    *.mov|*.mp4|*.3gp|*.m4v)
      videos=$((videos + 1))
      if [ "$(probe "$source")" != "$(probe "$output")" ]; then
        video_mismatch=$((video_mismatch + 1)); echo "STREAMS OR DURATION DIFFER in $relative"
      fi
      errors=$(decode "$output")
      if [ -n "$errors" ] && [ "$errors" != "$(decode "$source")" ]; then
        video_decode_errors=$((video_decode_errors + 1)); echo "DECODE ERRORS in $relative: $errors"
      fi;;
  esac
done 3< <(find "$work/out" -type f ! -name '.*' -print0 | sort -z)

total() { grep -o "\"$1\" *: *[0-9][0-9]*" "$work/report.json" | tail -1 | grep -o '[0-9]*$'; }
items=$(total items) failed=$(total failed)
echo
echo "inputs: $items, unreadable (reported, skipped): $failed, outputs checked: $outputs"
echo "inputs with location: $with_location_in; outputs with location left: $location_left"
echo "outputs missing a kept tag: $tags_lost"
echo "videos: $videos; stream/duration mismatches: $video_mismatch; decode errors: $video_decode_errors"
[ $((location_left + tags_lost + video_mismatch + video_decode_errors)) -eq 0 ]
