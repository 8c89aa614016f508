#!/usr/bin/env bash
# Builds the lab's proof sets (tests/lab/sets.cmake) for sm_90, one lab build a set, and packs
# what grading them on a GPU needs into OUT_DIR/<set>/: the set's grader (lab/lab-grade) and
# the step programs of the exercises the set lists, with the commit they were built from
# (build-info.txt). scripts/lab_proofs.py then grades them on a GPU machine, and
# scripts/gpu-check.sh does so in its part `proofs` when PROOFS names OUT_DIR:
#   scripts/pack-lab-proofs.sh proofs && tar -cJf proofs.tar.xz proofs
# Builds go to build-lab-proof-<set>/ (kept, so that a second run only rebuilds what changed).
#   scripts/pack-lab-proofs.sh OUT_DIR [SET ...]     (default: every set but `solved`)
set -euo pipefail
if [ $# -lt 1 ]; then
  echo "usage: scripts/pack-lab-proofs.sh OUT_DIR [SET ...]" >&2
  exit 2
fi
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=$1
shift
SETS=("$@")
if [ ${#SETS[@]} -eq 0 ]; then
  mapfile -t SETS < <(sed -n 's/^set(tt_lab_set_\([A-Za-z0-9-]*\).*/\1/p' \
                      "$ROOT/tests/lab/sets.cmake" | grep -v '^solved$')
fi
mkdir -p "$OUT"
for set in "${SETS[@]}"; do
  # The exercises the set lists: the first field of each of its entries.
  exercises=$(python3 "$ROOT/scripts/lab_proofs.py" --list "$set")
  if [ -z "$exercises" ]; then
    echo "pack-lab-proofs: no set '$set' in tests/lab/sets.cmake" >&2
    exit 2
  fi
  build="$ROOT/build-lab-proof-$set"
  cmake -S "$ROOT" -B "$build" -DCMAKE_CUDA_ARCHITECTURES=90 -DTT_LAB=ON \
        -DTT_LAB_PROOF="$set" >/dev/null
  # shellcheck disable=SC2086  # one target an exercise
  cmake --build "$build" -j --target lab-grade $exercises >/dev/null
  rm -rf "${OUT:?}/$set"
  mkdir -p "$OUT/$set/lab"
  cp -p "$build/lab/lab-grade" "$OUT/$set/lab/"
  for ex in $exercises; do
    mkdir -p "$OUT/$set/steps/$ex"
    cp -p "$build/steps/$ex/$ex" "$OUT/$set/steps/$ex/"
  done
  cp -p "$build/build-info.txt" "$OUT/$set/"
  echo "pack-lab-proofs: $set: $(echo $exercises | wc -w) exercise(s) in $OUT/$set"
done
