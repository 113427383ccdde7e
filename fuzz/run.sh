#!/usr/bin/env bash
# Builds the libFuzzer harnesses and runs one.
#
#   fuzz/run.sh build                             build every fuzzer into fuzz/.build (what is out of date)
#   fuzz/run.sh pipeline|header|reduce [SECONDS]  build, fuzz for SECONDS (600 by default), one process
#                                                 at a time, going on after a finding; then merge inputs
#                                                 that add coverage into fuzz/corpus/NAME
#   fuzz/run.sh pipeline|header|reduce FILE...    build, then run each input once (a crash artifact)
#
# Findings land in fuzz/.artifacts/NAME/, the log of each run in fuzz/.artifacts/.
set -euo pipefail
cd "$(dirname "$0")/.."

build=fuzz/.build
artifacts=fuzz/.artifacts
# Address as well as fuzzer: Swift's own checks trap on bounds and overflow, ASan catches what
# slips past them in unsafe code and the C libraries underneath (libxml2 for XMLParser).
swift_flags=(-sanitize=fuzzer,address -parse-as-library -O -g)
# MetadataKit imports the system zlib through CZlib's module map, and so needs it wherever it is
# compiled or imported; the header fuzzer links -lz. The modules built here are found in $build.
swift_flags+=(-I Sources/CZlib -I Sources/CCrypto -I "$build")
# The reduce harness is C, with the shim's reduce sources compiled into it (instrumented) and
# libvips linked as it is: the toolchain's clang, which has libFuzzer.
c_flags=(-fsanitize=fuzzer,address -O1 -g -I Sources/CMediaShim/include)

# ld.gold warns once per ASan check routine ("Cannot export local symbol"); nothing else is hidden.
quiet_link() {
    "$@" 2> >(grep -v "Cannot export local symbol" >&2)
}

module() { # NAME SOURCES...: an instrumented library module the harnesses import
    local name=$1; shift
    quiet_link swiftc "${swift_flags[@]}" -enable-testing -wmo -module-name "$name" \
        -emit-module -emit-module-path "$build/$name.swiftmodule" -emit-object -o "$build/$name.o" "$@"
}

format_sources=(Sources/MediaFormats/*.swift)
metadata_sources=($(find Sources/MetadataKit -name '*.swift' | sort))
header_sources=("${format_sources[@]}" Sources/PipelineModel/*.swift "${metadata_sources[@]}" Sources/MediaBatchCore/Media/FormatSniffer.swift
                Sources/MediaBatchCore/Media/GeoPosition.swift fuzz/HeaderFuzzer.swift)

reduce_sources=(fuzz/ReduceFuzzer.c Sources/CMediaShim/kernels/reduce.c Sources/CMediaShim/kernels/reduce_kernels.c)

# DigestKit (MetadataKit's MD5, over the system's libcrypto), not instrumented: one module of its own.
digest_sources=(Sources/DigestKit/*.swift)

out_of_date() { # BINARY SOURCES...
    local binary=$1; shift
    [[ ! -x $binary || -n $(find "$@" fuzz/run.sh -newer "$binary") ]]
}

build_pipeline() {
    if out_of_date "$build/pipeline-fuzzer" fuzz/Pipeline/*.swift fuzz/Package.swift $(find Sources -name '*.swift'); then
        # The harness over mediabatch's own stages (fuzz/Package.swift): SwiftPM passes the sanitizers
        # to every module, and -enable-testing lets the harness read the stages' options.
        swift build --package-path fuzz --scratch-path "$build/spm" -c release --product PipelineFileFuzzer \
            -Xswiftc -sanitize=fuzzer,address -Xswiftc -enable-testing >/dev/null
        cp "$build/spm/release/PipelineFileFuzzer" "$build/pipeline-fuzzer"
    fi
}

build_header() {
    if out_of_date "$build/header-fuzzer" "${header_sources[@]}"; then
        # FormatSniffer and GeoPosition import MediaFormats, PipelineModel and MetadataKit, so those are modules here.
        module MediaFormats "${format_sources[@]}"
        module PipelineModel Sources/PipelineModel/*.swift
        module DigestKit -I Sources/CCrypto "${digest_sources[@]}"
        module MetadataKit "${metadata_sources[@]}"
        quiet_link swiftc "${swift_flags[@]}" -module-name HeaderFuzzer \
            Sources/MediaBatchCore/Media/FormatSniffer.swift Sources/MediaBatchCore/Media/GeoPosition.swift fuzz/HeaderFuzzer.swift \
            "$build/MediaFormats.o" "$build/PipelineModel.o" "$build/DigestKit.o" "$build/MetadataKit.o" -lFoundationXML -lz -lcrypto \
            -o "$build/header-fuzzer"
    fi
}

build_reduce() {
    if out_of_date "$build/reduce-fuzzer" "${reduce_sources[@]}" Sources/CMediaShim/kernels/*.h Sources/CMediaShim/include/*.h; then
        # shellcheck disable=SC2046 # pkg-config's flags are words
        clang "${c_flags[@]}" $(pkg-config --cflags vips) "${reduce_sources[@]}" $(pkg-config --libs vips) -lm -o "$build/reduce-fuzzer"
    fi
}

options() { # NAME: libFuzzer options per fuzzer
    case $1 in
        # Pipeline files are a few hundred bytes; 8 KiB leaves room for deep nesting.
        pipeline) echo "-max_len=8192 -dict=fuzz/pipeline.dict" ;;
        # Header seeds are at most 64 KiB: enough for every metadata segment and a whole moov.
        header) echo "-max_len=65536 -dict=fuzz/header.dict" ;;
        # 8 bytes of sizes and shrink, then pixels, repeated to fill up to 1024 × 64 × 4 samples.
        reduce) echo "-max_len=4096" ;;
    esac
    # ASan's shadow memory needs room; one input allocating 512 MiB is a finding in itself.
    echo "-timeout=10 -rss_limit_mb=2560 -malloc_limit_mb=512 -print_final_stats=1"
}

export ASAN_OPTIONS="${ASAN_OPTIONS:-}:symbolize=1"
# Swift's own crash backtracer fights ASan over the dying process; libFuzzer prints the stack.
export SWIFT_BACKTRACE=enable=no

command=${1:?usage: fuzz/run.sh build | pipeline|header|reduce [SECONDS | FILE...]}
# No leak checks for the header readers: XMLParser on Linux leaks a CFError on every libxml2
# error, the heap scan after each one took half of the time, and the exit-time report named only
# that leak. Growth still trips -rss_limit_mb.
[[ $command == header ]] && export ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0"
mkdir -p "$build"
if [[ $command == build ]]; then
    build_pipeline && build_header && build_reduce
    exit 0
fi
[[ $command == pipeline || $command == header || $command == reduce ]] || { echo "unknown fuzzer $command" >&2; exit 2; }
# Only the fuzzer asked for: one that does not build does not stop the others.
"build_$command"
fuzzer="$build/$command-fuzzer"
mkdir -p "$artifacts/$command" "$artifacts/work-$command" "fuzz/corpus/$command"

if [[ $# -ge 2 && ! $2 =~ ^[0-9]+$ ]]; then
    shift
    exec "$fuzzer" $(options "$command") "$@"
fi

seconds=${2:-600}
log="$artifacts/$command-$(date +%Y%m%d-%H%M%S).log"
# New inputs go to the work folder; the committed corpus only seeds it. A finding ends the
# fuzzing process; the next one carries on from the work folder until the time is up.
status=0
deadline=$((SECONDS + seconds))
while ((SECONDS < deadline)); do
    "$fuzzer" $(options "$command") -max_total_time=$((deadline - SECONDS)) -artifact_prefix="$artifacts/$command/" \
        "$artifacts/work-$command" "fuzz/corpus/$command" 2>&1 | tee "$log.process" || status=$?
    cat "$log.process" >>"$log"
    # A process that never finished reading the corpus fails on a seed: every next one would too.
    grep -q INITED "$log.process" || break
done
rm -f "$log.process"
# Keep only what adds coverage to the committed corpus, cut to 8 KiB so that it stays small.
"$fuzzer" $(options "$command") -max_len=8192 -merge=1 -artifact_prefix="$artifacts/$command/" "fuzz/corpus/$command" "$artifacts/work-$command" >"$log.merge" 2>&1
# Executions add up over the processes (a process ended by a finding counts to its last status
# line); coverage and corpus size are the last process's.
awk '/^#[0-9]+/ { last = substr($1, 2); for (i = 2; i < NF; i++) if ($i ~ /^(cov|ft|corp|exec\/s):$/) stat[$i] = $(i + 1) }
     /^INFO: Seed: / { processes++; counted = 0 }
     /^Done [0-9]+ runs/ { runs += $2; counted = 1 }
     /ERROR: (libFuzzer|AddressSanitizer|LeakSanitizer)/ && !counted { runs += last; counted = 1 }
     /Test unit written to/ { findings = findings "\n  " $NF }
     END { printf "executions: %d in %d process(es); last: cov %s ft %s corp %s exec/s %s\nfindings:%s\n",
                  runs, processes, stat["cov:"], stat["ft:"], stat["corp:"], stat["exec/s:"], findings ? findings : " none" }' "$log" | tee -a "$log"
echo "corpus: $(ls "fuzz/corpus/$command" | wc -l) files in fuzz/corpus/$command, $(ls "$artifacts/work-$command" | wc -l) in the work folder"
echo "log: $log"
exit "$status"
