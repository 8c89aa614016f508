#!/usr/bin/env bash
# Copies the programs of a build (steps, course, references, tests, lab grader) and the commit
# it was configured at (build-info.txt) into another folder with the same layout and nothing
# else: no object files, no CMake state. The copy is small enough to take to a GPU machine
# that cannot build, and scripts/gpu-check.sh runs on it as on the build itself:
#   scripts/pack-build.sh build-sm90 packed && scripts/gpu-check.sh packed OUT
# (on the GPU machine, from the repository's root, so that the scripts are there too).
set -euo pipefail
if [ $# -ne 2 ]; then
  echo "usage: scripts/pack-build.sh BUILD_DIR OUT_DIR" >&2
  exit 2
fi
BUILD=$1
OUT=$2
if [ ! -x "$BUILD/tests/gpu_tests" ]; then
  echo "pack-build: $BUILD holds no built gpu_tests; build it first" >&2
  exit 2
fi
rm -rf "$OUT"
mkdir -p "$OUT"
( cd "$BUILD" &&
  find steps course common tests lab -type f -perm -u+x ! -name '*.o' ! -name '*.sh' \
       ! -path '*/CMakeFiles/*' 2>/dev/null ) |
while read -r f; do
  mkdir -p "$OUT/$(dirname "$f")"
  cp -p "$BUILD/$f" "$OUT/$f"
done
# The commit the build was configured at (CMakeLists.txt), for gpu-check's summary.
[ -f "$BUILD/build-info.txt" ] && cp -p "$BUILD/build-info.txt" "$OUT/"
echo "pack-build: $(find "$OUT" -type f | wc -l) programs, $(du -sh "$OUT" | cut -f1), in $OUT"
