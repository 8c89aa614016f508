#!/usr/bin/env bash
# Draws the bank pictures of the chapters (docs/images/banks-*.svg) with the steps' own
# access analyser (`<step> --explain --format svg`; no GPU needed):
#   scripts/make_bank_pictures.sh BUILD_DIR            write them into docs/images
#   scripts/make_bank_pictures.sh --check BUILD_DIR    exit 1 if a committed one differs
# The pictures are deterministic, so a change of a step's index arithmetic that changes its
# bank pattern shows up here as a failed check until the pictures are redrawn.
set -uo pipefail
CHECK=0
if [ "${1:-}" = "--check" ]; then CHECK=1; shift; fi
if [ $# -ne 1 ]; then echo "usage: $0 [--check] BUILD_DIR" >&2; exit 2; fi
BUILD=$1
IMAGES=$(cd "$(dirname "$0")/../docs/images" && pwd)
# name | step | extra options
PICTURES=(
  "banks-03-shared|03-shared|"
  "banks-04-pad-32x33|04-padding|"
  "banks-04-pad-32x33-double|04-padding|--dtype double"
  "banks-04-pad-16x17|04-padding|--variant pad-16x17"
  "banks-06-padded|06-float4|"
  "banks-06-unpadded|06-float4|--variant unpadded"
  "banks-07-tile64|07-swizzle|"
  "banks-07-scalar|07-swizzle|--variant scalar"
)
STATUS=0
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
for entry in "${PICTURES[@]}"; do
  IFS='|' read -r name step options <<<"$entry"
  program="$BUILD/steps/$step/$step"
  if [ ! -x "$program" ]; then echo "$0: $program not built" >&2; exit 2; fi
  # shellcheck disable=SC2086
  if ! "$program" --explain --format svg $options >"$TMP/$name.svg"; then
    echo "$0: $step --explain --format svg $options failed" >&2; exit 2
  fi
  if [ $CHECK -eq 1 ]; then
    if ! cmp -s "$TMP/$name.svg" "$IMAGES/$name.svg"; then
      echo "out of date: docs/images/$name.svg ($step --explain --format svg $options)"
      STATUS=1
    fi
  else
    cp "$TMP/$name.svg" "$IMAGES/$name.svg"
  fi
done
if [ $CHECK -eq 1 ] && [ $STATUS -eq 0 ]; then echo "all ${#PICTURES[@]} bank pictures up to date"; fi
if [ $STATUS -ne 0 ]; then echo "redraw them with: scripts/make_bank_pictures.sh BUILD_DIR" >&2; fi
exit $STATUS
