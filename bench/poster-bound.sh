#!/usr/bin/env bash
# The posters set's bound: what any tool making these posters must at least do, with the same libraries.
# Each movie's keyframe at or before 10% of its duration decoded (-threads 1) and, unless `decode` is
# given, shrunk to fit 1280 px with swscale's Lanczos and made packed RGB; no tone map, no encode, no
# file written. The movies are dealt round-robin to one ffmpeg process per CPU, each opening all of
# its movies as inputs: no start-up per movie.
# Prints those commands, a line each, for the caller to time (so that the ffprobe here is not):
#   poster-bound.sh DIR CPUS [decode] > plan; xargs -P CPUS -d '\n' -I{} bash -c {} < plan
set -euo pipefail
dir=$1 cpus=$2 filter="scale=1280:1280:force_original_aspect_ratio=decrease:flags=lanczos,format=rgb24"
[[ ${3:-} == decode ]] && filter=null
mapfile -t movies < <(find "$dir" -type f ! -name .done | sort)
for ((group = 0; group < cpus; group++)); do
  inputs=() outputs=() index=0
  for ((i = group; i < ${#movies[@]}; i += cpus)); do
    duration=$(ffprobe -v error -show_entries format=duration -of csv=p=0 "${movies[i]}")
    inputs+=(-threads 1 -noaccurate_seek -ss "$(awk -v d="$duration" 'BEGIN { print d / 10 }')" -i "${movies[i]}")
    outputs+=(-map "$index:v:0" -frames:v 1 -filter:v "$filter" -f null -)
    index=$((index + 1))
  done
  ((index > 0)) && printf '%q ' ffmpeg -v error -nostdin -filter_threads 1 "${inputs[@]}" "${outputs[@]}" && echo
done
