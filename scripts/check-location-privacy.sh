#!/usr/bin/env bash
# Runs a folder of media — by default the whole shared corpus — through stripLocation into every
# output format mediabatch writes (jpeg, png, webp, avif, heic, and each input's own format), and
# checks every output the way a privacy reviewer would: with exiftool and ffprobe, not with
# mediabatch's own readers.
#   - no location: `exiftool -a -G1 -location:all -gps:all` finds nothing;
#   - kept where the input had them and the output format has a place for them: EXIF Make, Model,
#     DateTimeOriginal, Copyright; XMP dc:rights and dc:creator; IPTC CopyrightNotice (JPEG, PNG,
#     TIFF); the Live Photo identifier (Apple MediaGroupUUID in stills, Keys ContentIdentifier and
#     CreationDate in movies); an ICC profile (the same one unless the colour was converted to sRGB;
#     none needed where CMYK became sRGB);
#   - videos: same streams and duration as the input (ffprobe), every stream decodes (or fails
#     exactly as the input does);
#   - exiftool has no warning about an output that it did not have about its input;
#   - copies: every second IPTC or XMP copy exiftool finds (`-a -G1`: a numbered group such as IPTC2,
#     IPTC3, XMP2, or a tag met twice in one group) is listed, in inputs and outputs, and an output
#     copy that still names a place fails the check.
# Prints one line per format and the totals; exits 1 if any check failed.
# Usage: scripts/check-location-privacy.sh [INPUT_FOLDER]   (needs a release build: make release)
set -uo pipefail
cd "$(dirname "$0")/.."
input=$(realpath "${1:-../shared/corpus}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
binary=$(realpath .build/release/mediabatch 2>/dev/null)
[ -x "$binary" ] || { echo "build first: make release" >&2; exit 2; }

formats=(jpeg png webp avif heic own)
for format in "${formats[@]}"; do
  transcode=""
  [ "$format" = own ] || transcode="{\"stage\": \"transcode\", \"to\": \"$format\"},"
  cat > "$work/$format.json" <<EOF
{"version": 1, "input": {"root": "$input", "exclude": ["**/.*", "**/MANIFEST.tsv", "**/*.md"]},
 "output": {"root": "$work/out-$format"},
 "stages": [{"stage": "decode"}, {"stage": "downsample", "maxPixelSize": 1024}, $transcode
            {"stage": "stripLocation"}, {"stage": "write"}]}
EOF
  "$binary" run "$work/$format.json" --report "$work/report-$format.json" --quiet 2>"$work/errors-$format.txt"
done

# exiftool reads each tree once; the comparison runs over its JSON, the copies over its text (JSON
# keeps one of two tags of the same name; without -q, which would drop the lines naming the files).
exiftool -q -q -j -a -G1 -r -struct "$input" > "$work/input.json" 2>/dev/null
exiftool -a -G1 -s -r -IPTC:all -XMP:all "$input" > "$work/input-copies.txt" 2>/dev/null
for format in "${formats[@]}"; do
  exiftool -q -q -j -a -G1 -r -struct "$work/out-$format" > "$work/output-$format.json" 2>/dev/null
  exiftool -a -G1 -s -r -IPTC:all -XMP:all "$work/out-$format" > "$work/output-$format-copies.txt" 2>/dev/null
done

python3 - "$input" "$work" "${formats[@]}" <<'EOF'
import json, re, subprocess, sys
from collections import Counter
from pathlib import Path

root, work, formats = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3:]
# exiftool's Location group for -location:all -gps:all, per tag: -listx knows it; -j prints
# groups only, so the check asks exiftool once per file that has anything GPS-, place- or
# location-like in its tag list (a superset), and trusts its answer.
KEPT = ["IFD0:Make", "IFD0:Model", "ExifIFD:DateTimeOriginal", "IFD0:Copyright", "XMP-dc:Rights", "XMP-dc:Creator",
        "Apple:MediaGroupUUID", "Apple:ContentIdentifier", "Keys:ContentIdentifier", "Keys:CreationDate"]
IPTC_CARRIERS = {".jpg", ".png", ".tif"}
VIDEO = {".mov", ".mp4", ".3gp", ".m4v"}

NUMBERED_COPY = re.compile(r"^(IPTC|XMP)\d+(-|$)")
PLACE = re.compile(r"^(City|Sub-?location|Province-State|State|Country.*|(Content)?Location.*|Destination|GPS.*|.*(Latitude|Longitude|Altitude))$")

def copies(path, base):
    """Per file (relative to base): each second IPTC/XMP copy as "GROUP:Tag", with whether a tag
    of it names a place. exiftool's text keeps every copy: a numbered group, or a tag met twice."""
    found, current, seen = {}, None, Counter()
    for line in open(path, errors="replace"):
        if line.startswith("======== "):
            current, seen = str(Path(line[9:].strip()).relative_to(base)), Counter()
            continue
        match = re.match(r"^\[([^\]]+)\]\s+(\S+)", line)
        if current is None or not match:
            continue
        group, tag = match.groups()
        seen[(group, tag)] += 1
        if NUMBERED_COPY.match(group) or seen[(group, tag)] > 1:
            found.setdefault(current, []).append((f"{group}:{tag}", bool(PLACE.search(tag))))
    return found

def by_path(path, base):
    return {str(Path(entry["SourceFile"]).relative_to(base)): entry for entry in json.load(open(path))}

def location(path):
    out = subprocess.run(["exiftool", "-q", "-q", "-a", "-G1", "-s", "-location:all", "-gps:all", str(path)],
                         capture_output=True, text=True).stdout.strip()
    return out

def warnings(path):
    """Every warning exiftool gives (not only the first, as -Warning alone does)."""
    out = subprocess.run(["exiftool", "-q", "-q", "-a", "-s3", "-Warning", str(path)], capture_output=True, text=True).stdout
    return set(out.splitlines())

def probe(path):
    return subprocess.run(["ffprobe", "-v", "error", "-show_entries", "stream=index,codec_type,codec_tag_string,duration:format=duration",
                           "-of", "compact", str(path)], capture_output=True, text=True).stdout

def decode_errors(path):
    return subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-i", str(path), "-map", "0:v?", "-map", "0:a?", "-f", "null", "-"],
                          capture_output=True, text=True).stderr

inputs = by_path(work / "input.json", root)
had_location = {relative for relative in inputs if location(root / relative)}
input_copies = copies(work / "input-copies.txt", root)
for relative, found in sorted(input_copies.items()):
    print(f"input copies in {relative}: " + ", ".join(f"{tag}{' (place)' if place else ''}" for tag, place in found))
totals = {"outputs": 0, "location": 0, "lost": 0, "video": 0, "warnings": 0, "copies": 0}
for format in formats:
    base = work / f"out-{format}"
    outputs = by_path(work / f"output-{format}.json", base) if base.exists() else {}
    report = json.load(open(work / f"report-{format}.json"))
    # Each output's input, as the run reports it: inputs share stems (`x.jpg`, `x.avif`).
    source_of = {item["output"]: item["input"] for item in report["items"] if item.get("output")}
    counts = {"outputs": 0, "location": 0, "lost": 0, "video": 0, "warnings": 0, "copies": 0}
    output_copies = copies(work / f"output-{format}-copies.txt", base) if base.exists() else {}
    for relative, after in sorted(outputs.items()):
        if relative.startswith(".mediabatch"):
            continue
        suffix = Path(relative).suffix.lower()
        source = source_of.get(relative)
        if source is None:
            print(f"{format}: no input for {relative}"); continue
        before = inputs[source]
        counts["outputs"] += 1
        left = location(base / relative)
        if left:
            counts["location"] += 1
            print(f"{format}: LOCATION LEFT in {relative}:\n    " + left.replace("\n", "\n    "))
        placed = [tag for tag, place in output_copies.get(relative, []) if place]
        if placed:
            counts["copies"] += 1
            print(f"{format}: A COPY NAMES A PLACE in {relative}: " + ", ".join(placed))
        elif relative in output_copies:
            print(f"{format}: copies kept in {relative}: " + ", ".join(tag for tag, _ in output_copies[relative]))
        wanted = [tag for tag in KEPT if tag in before]
        if "IPTC:CopyrightNotice" in before and suffix in IPTC_CARRIERS:
            wanted.append("IPTC:CopyrightNotice")
        missing = [tag for tag in wanted if str(after.get(tag)) != str(before[tag])]
        # A CMYK profile cannot describe the RGB pixels a CMYK input becomes (sRGB, which an
        # untagged image is taken to be).
        if "ICC_Profile:ProfileDescription" in before and "ICC_Profile:ProfileDescription" not in after \
                and before.get("ICC-header:ColorSpaceData") != "CMYK":
            missing.append("ICC profile")
        if missing:
            counts["lost"] += 1
            print(f"{format}: TAGS LOST in {relative}: " + ", ".join(f"{tag} ({before.get(tag, 'present')!s:.40})" for tag in missing))
        new_warnings = warnings(base / relative) - warnings(root / source)
        if new_warnings:
            counts["warnings"] += 1
            print(f"{format}: EXIFTOOL WARNS of {relative}: " + "; ".join(sorted(new_warnings)))
        if suffix in VIDEO:
            if probe(root / source) != probe(base / relative):
                counts["video"] += 1; print(f"{format}: STREAMS OR DURATION DIFFER in {relative}")
            errors = decode_errors(base / relative)
            if errors and errors != decode_errors(root / source):
                counts["video"] += 1; print(f"{format}: DECODE ERRORS in {relative}: {errors}")
    summary = report.get("summary", report)
    totals_line = ", ".join(f"{key} {summary.get('totals', {}).get(key, '?')}" for key in ("ok", "failed", "skipped"))
    print(f"{format:5} outputs {counts['outputs']:3}  with location {counts['location']}  copies with a place {counts['copies']}  "
          f"missing a kept tag {counts['lost']}  video mismatches {counts['video']}  exiftool warnings {counts['warnings']}   (items: {totals_line})")
    for key in totals:
        totals[key] += counts[key]
print(f"\ninputs: {len(inputs)}, with location: {len(had_location)}, with a second IPTC/XMP copy: {len(input_copies)}; "
      f"outputs checked: {totals['outputs']} in {len(formats)} formats")
print(f"outputs with location left: {totals['location']}; outputs with a copy naming a place: {totals['copies']}; "
      f"outputs missing a kept tag: {totals['lost']}; video mismatches: {totals['video']}; outputs exiftool warns of: {totals['warnings']}")
sys.exit(1 if totals["location"] + totals["copies"] + totals["lost"] + totals["video"] + totals["warnings"] else 0)
EOF
