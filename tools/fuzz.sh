#!/usr/bin/env bash
# Builds one libFuzzer target (Fuzz/<TARGET>/main.swift) with AddressSanitizer and runs it.
#
#   tools/fuzz.sh TARGET [SECONDS]        fuzz for SECONDS (default 60), 0 = until it finds something
#   tools/fuzz.sh TARGET --replay FILE…   run the given inputs once (to check a crash or a fix)
#
# Targets: TraceReader PunchDetector LabelParser InputEvents JoystickEvents Evemu ServerMessages.
# The modules are compiled straight from Sources/ with swiftc, outside Package.swift, so a plain
# `swift build` / `swift test` never sees the fuzzers. Build products and the growing corpus live in
# .build-fuzz/; crashes, hangs and out-of-memory inputs land in .build-fuzz/artifacts/<TARGET>/.
# Minimized inputs that found defects belong in Tests/Fixtures/fuzz/<TARGET>/ (replayed by swift test).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

target=${1:?usage: tools/fuzz.sh TARGET [SECONDS | --replay FILE...]}
shift
case $target in
    TraceReader | PunchDetector | LabelParser) module=PunchKit ;;
    InputEvents | JoystickEvents | Evemu) module=InputDevices ;;
    ServerMessages) module=FightProtocol ;;
    *) echo "unknown target $target" >&2; exit 64 ;;
esac

# FUZZ_SANITIZE=fuzzer builds without ASan (to tell a slow input from ASan's overhead on it).
sanitize=${FUZZ_SANITIZE:-fuzzer,address}
build=$root/.build-fuzz/build-${sanitize//,/-}
mkdir -p "$build"
flags=(-O -g -swift-version 6 -parse-as-library -sanitize="$sanitize" -I "$build")

# A module compiled once into a static library (instrumented for coverage and ASan) from the
# Swift files under SOURCES (a space-separated list of folders and files).
compile_module() {
    local name=$1 sources=$2; shift 2
    if [[ ! -f $build/lib$name.a || -n $(find $sources -newer "$build/lib$name.a" -print -quit) ]]; then
        echo "building $name" >&2
        swiftc "${flags[@]}" -wmo -module-name "$name" -emit-module -emit-module-path "$build/$name.swiftmodule" \
            -emit-library -static -o "$build/lib$name.a" "$@" $(find $sources -name '*.swift' | sort)
    fi
}

libs=()
if [[ $module == PunchKit ]]; then
    compile_module PunchKit Sources/PunchKit
    libs=(-lPunchKit)
elif [[ $module == FightProtocol ]]; then
    # The protocol alone: what reads a message needs neither Hummingbird nor the store.
    compile_module FightEngine Sources/FightEngine
    compile_module FightProtocol Sources/FightProtocol
    libs=(-lFightProtocol -lFightEngine)
else
    # The C shim, with the module map SwiftPM would generate for it.
    shims=$root/Sources/CInputDevicesShims
    mkdir -p "$build/CInputDevicesShims"
    printf 'module CInputDevicesShims {\n    header "%s/include/CInputDevicesShims.h"\n    export *\n}\n' "$shims" \
        >"$build/CInputDevicesShims/module.modulemap"
    if [[ ! -f $build/shims.o || -n $(find "$shims" -newer "$build/shims.o" -print -quit) ]]; then
        clang -O1 -g -fsanitize="${sanitize/fuzzer/fuzzer-no-link}" -c "$shims/shims.c" -I "$shims/include" -o "$build/shims.o"
    fi
    compile_module InputDevices Sources/InputDevices -Xcc -fmodule-map-file="$build/CInputDevicesShims/module.modulemap"
    libs=(-lInputDevices "$build/shims.o" -Xcc -fmodule-map-file="$build/CInputDevicesShims/module.modulemap")
fi
# The entry point is shared with the regression test that replays Tests/Fixtures/fuzz/.
entry=Tests/${module}Tests/FuzzEntryPoints.swift
binary=$build/$target
# Every library it links counts: ServerMessages takes FightEngine in as well.
if [[ ! -x $binary || $entry -nt $binary || Fuzz/$target/main.swift -nt $binary ||
    -n $(find "$build" -maxdepth 1 \( -name 'lib*.a' -o -name shims.o \) -newer "$binary" -print -quit) ]]; then
    echo "linking $target" >&2
    swiftc "${flags[@]}" -module-name "${target}Fuzzer" -L "$build" "${libs[@]}" \
        "Fuzz/$target/main.swift" "$entry" -o "$binary"
fi

# Swift's crash backtracer would sit in the way of libFuzzer's own report.
export SWIFT_BACKTRACE=enable=no
# ASan: report leaks too; libFuzzer counts memory itself (-rss_limit_mb below).
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1:quarantine_size_mb=32}

# -timeout=1: over a second on one input is a hang. The timer is wall-clock time: on a loaded
# machine (or under `nice`) FUZZ_TIMEOUT=10 keeps a starved run from reporting hangs that are not
# there; replay what it calls slow with the default to tell. -rss_limit_mb: ASan's shadow memory and
# quarantine (cut to 32 MB) and the corpus take 300-500 MB on their own.
# -malloc_limit_mb=100: any single allocation over 100 MB is a defect.
options=(-timeout="${FUZZ_TIMEOUT:-1}" -rss_limit_mb=1024 -malloc_limit_mb=100 -max_len="${FUZZ_MAX_LEN:-65536}"
    -dict="Fuzz/dictionaries/$target.dict" -print_final_stats=1 -report_slow_units=1)

if [[ ${1:-} == --replay ]]; then
    shift
    exec "$binary" "${options[@]}" -runs=1 "$@"
fi
seconds=${1:-60}

# The corpus grows in .build-fuzz; it starts from the checked-in seeds (Fuzz/seeds: heads of the
# sample traces, their label files, the test fixtures' streams) and the inputs that found defects before.
corpus=$root/.build-fuzz/corpus/$target
artifacts=$root/.build-fuzz/artifacts/$target
mkdir -p "$corpus" "$artifacts"
seeds=("$corpus")
[[ -d Fuzz/seeds/$target ]] && seeds+=("Fuzz/seeds/$target")
[[ -d Tests/Fixtures/fuzz/$target ]] && seeds+=("Tests/Fixtures/fuzz/$target")

run_options=(-max_total_time="$seconds" -artifact_prefix="$artifacts/")
[[ $seconds == 0 ]] && run_options=(-artifact_prefix="$artifacts/")
exec "$binary" "${options[@]}" "${run_options[@]}" "${seeds[@]}"
