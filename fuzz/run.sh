#!/usr/bin/env bash
# Builds the libFuzzer harnesses and runs one.
#
#   fuzz/run.sh build                      build both fuzzers into fuzz/.build
#   fuzz/run.sh pipeline|header [SECONDS]  build, fuzz for SECONDS (600 by default) with one
#                                          process, then merge inputs that add coverage into
#                                          fuzz/corpus/NAME
#   fuzz/run.sh pipeline|header FILE...    build, then run each input once (a crash artifact)
#
# Findings land in fuzz/.artifacts/NAME/, the log of each run in fuzz/.artifacts/.
set -euo pipefail
cd "$(dirname "$0")/.."

build=fuzz/.build
artifacts=fuzz/.artifacts
# Address as well as fuzzer: Swift's own checks trap on bounds and overflow, ASan catches what
# slips past them in unsafe code and the C libraries underneath (libxml2 for XMLParser).
swift_flags=(-sanitize=fuzzer,address -parse-as-library -O -g)

# ld.gold warns once per ASan check routine ("Cannot export local symbol"); nothing else is hidden.
quiet_link() {
    "$@" 2> >(grep -v "Cannot export local symbol" >&2)
}

module() { # NAME SOURCES...: an instrumented library module the harnesses import
    local name=$1; shift
    quiet_link swiftc "${swift_flags[@]}" -enable-testing -wmo -module-name "$name" \
        -emit-module -emit-module-path "$build/$name.swiftmodule" -emit-object -o "$build/$name.o" "$@"
}

build_all() {
    mkdir -p "$build"
    # The pipeline harness compiles with PipelineModel's sources: one module, internal access.
    quiet_link swiftc "${swift_flags[@]}" -module-name PipelineFileFuzzer \
        Sources/PipelineModel/*.swift fuzz/PipelineFileFuzzer.swift -o "$build/pipeline-fuzzer"
    # FormatSniffer and GeoPosition import PipelineModel and MetadataKit, so those are modules here.
    module PipelineModel Sources/PipelineModel/*.swift
    module MetadataKit Sources/MetadataKit/*.swift
    quiet_link swiftc "${swift_flags[@]}" -I "$build" -module-name HeaderFuzzer \
        Sources/MediaBatchCore/FormatSniffer.swift Sources/MediaBatchCore/GeoPosition.swift fuzz/HeaderFuzzer.swift \
        "$build/PipelineModel.o" "$build/MetadataKit.o" -lFoundationXML -o "$build/header-fuzzer"
}

options() { # NAME: libFuzzer options per fuzzer
    case $1 in
        # Pipeline files are a few hundred bytes; 8 KiB leaves room for deep nesting.
        pipeline) echo "-max_len=8192 -dict=fuzz/pipeline.dict" ;;
        # Header seeds are at most 64 KiB: enough for every metadata segment and a whole moov.
        header) echo "-max_len=65536 -dict=fuzz/header.dict" ;;
    esac
    # ASan's shadow memory needs room; one input allocating 512 MiB is a finding in itself.
    echo "-timeout=10 -rss_limit_mb=2560 -malloc_limit_mb=512 -print_final_stats=1"
}

# Foundation leaks on libxml2's error path; leaks elsewhere are still reported.
export LSAN_OPTIONS="suppressions=$PWD/fuzz/lsan.supp:print_suppressions=0"
export ASAN_OPTIONS="${ASAN_OPTIONS:-}:symbolize=1"
# Swift's own crash backtracer fights ASan over the dying process; libFuzzer prints the stack.
export SWIFT_BACKTRACE=enable=no

command=${1:?usage: fuzz/run.sh build | pipeline|header [SECONDS | FILE...]}
build_all
[[ $command == build ]] && exit 0
[[ $command == pipeline || $command == header ]] || { echo "unknown fuzzer $command" >&2; exit 2; }
fuzzer="$build/$command-fuzzer"
mkdir -p "$artifacts/$command" "$artifacts/work-$command" "fuzz/corpus/$command"

if [[ $# -ge 2 && ! $2 =~ ^[0-9]+$ ]]; then
    shift
    exec "$fuzzer" $(options "$command") "$@"
fi

seconds=${2:-600}
log="$artifacts/$command-$(date +%Y%m%d-%H%M%S).log"
# New inputs go to the work folder; the committed corpus only seeds it.
status=0
"$fuzzer" $(options "$command") -max_total_time="$seconds" -artifact_prefix="$artifacts/$command/" \
    "$artifacts/work-$command" "fuzz/corpus/$command" 2>&1 | tee "$log" || status=$?
# Keep only what adds coverage to the committed corpus.
"$fuzzer" $(options "$command") -merge=1 "fuzz/corpus/$command" "$artifacts/work-$command" >>"$log" 2>&1
echo "log: $log"
exit "$status"
