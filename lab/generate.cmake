# Writes a step's source as a lab build compiles it (lab/lab.cmake runs this at build time):
#
#   cmake -DSOLUTION=steps/04-padding/padding.cuh -DOUT=build/lab/steps/04-padding/padding.cuh
#         -DSOURCES="answers.txt|lab/work/04-padding/padding.cuh" -P lab/generate.cmake
#
# OUT is SOLUTION with each region's body taken from the first of SOURCES ('|'-separated)
# that has regions of its exercise, or SOLUTION's own when none has, with #line directives
# that point the compiler's messages at the file each line came from.
include(${CMAKE_CURRENT_LIST_DIR}/regions.cmake)
string(REPLACE "|" ";" sources "${SOURCES}")
tt_lab_splice("${SOLUTION}" "${OUT}" "${sources}" ON "")
