# The lab (docs/lab-student.md): an exercise for each step from 02 on, made from the step's own
# source, so that exercise and model answer cannot drift apart.
#
# The part of a step that is its lesson sits between two comment lines of its source,
# `// LAB BEGIN <exercise>` and `// LAB END` (lab/regions.cmake). An exercise is the source with
# that region replaced by a TODO and a stub that compiles and is wrong (lab/start/<exercise>.txt).
#
# With -DTT_LAB=ON the steps are built from copies in build/lab/steps/ in which every region
# holds the student's answer: the region of the same exercise in the student's copy of the
# file, TT_LAB_WORK/<exercise>/<file> (lab/work/ unless told otherwise). A missing copy is
# created from the exercise at configure time (and report.md from the report template of
# docs/lab-student.md), and an existing one is never overwritten. The build takes only the
# regions from it, and the rest from the step's source. Everything else, the programs, their
# command line, --explain, the tour and the benchmark, is the course's own.
#
# TT_LAB_ANSWERS lists files whose regions come before the work folder's (the grader's proof
# builds wrong submissions this way), and TT_LAB_PROOF=<set> builds one of the proof sets of
# tests/lab/sets.cmake and registers its tests (lab/CMakeLists.txt).

option(TT_LAB "Build the lab's exercises (your answers in TT_LAB_WORK) in place of the steps" OFF)
set(TT_LAB_WORK "${PROJECT_SOURCE_DIR}/lab/work" CACHE PATH
    "The lab's work folder: your copy of each exercise's file (TT_LAB=ON)")
set(TT_LAB_ANSWERS "" CACHE STRING
    "Files of regions that replace the work folder's (TT_LAB=ON; the grader's proof)")
set(TT_LAB_PROOF "" CACHE STRING
    "A proof set of tests/lab/sets.cmake to build and test (TT_LAB=ON; empty: none)")

# The exercises, and the file of each step that holds its regions.
set(TT_LAB_EXERCISES 02-naive 03-shared 04-padding 05-multi-element 06-float4 07-swizzle
                     08-diagonal)
set(TT_LAB_FILE_02-naive naive.cu)
set(TT_LAB_FILE_03-shared shared.cuh)
set(TT_LAB_FILE_04-padding padding.cuh)
set(TT_LAB_FILE_05-multi-element multi_element.cu)
set(TT_LAB_FILE_06-float4 float4.cu)
set(TT_LAB_FILE_07-swizzle swizzle.hpp)
set(TT_LAB_FILE_08-diagonal diagonal.hpp)

set(TT_LAB_DIR ${CMAKE_CURRENT_LIST_DIR})
# The student's package (scripts/student_package.py) says so in this file: its steps hold the
# exercises' stubs where the course holds the model answers, and it has no tests/, so the
# tests of the model answers and the grader's proof are not registered.
if(EXISTS ${TT_LAB_DIR}/student-package.txt)
  set(TT_LAB_PACKAGE ON)
else()
  set(TT_LAB_PACKAGE OFF)
endif()
set(TT_LAB_TREE ${CMAKE_BINARY_DIR}/lab/steps)  # the steps' sources as the lab builds them
include(${TT_LAB_DIR}/regions.cmake)

# The first lines of a student's copy: what the file is and what the build takes from it.
function(tt_lab_header id file out)
  set(text "// Lab exercise ${id}, your copy of steps/${id}/${file}.\n")
  string(APPEND text "// Write your answer between the `// LAB BEGIN` and `// LAB END` ")
  string(APPEND text "lines below: the build takes\n// those lines from this file and everything ")
  string(APPEND text "else from ")
  string(APPEND text "the step's source (docs/lab-student.md).\n\n")
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

if(TT_LAB)
  set(tt_lab_work "${TT_LAB_WORK}")
  set(tt_lab_answers "${TT_LAB_ANSWERS}")
  if(TT_LAB_PROOF AND TT_LAB_PACKAGE)
    message(FATAL_ERROR "TT_LAB_PROOF=${TT_LAB_PROOF}: the student's package has no proof sets")
  elseif(TT_LAB_PROOF)
    # A proof set: the submissions it names, the model answer for the other exercises.
    include(${PROJECT_SOURCE_DIR}/tests/lab/sets.cmake)
    if(NOT DEFINED tt_lab_set_${TT_LAB_PROOF})
      message(FATAL_ERROR "TT_LAB_PROOF=${TT_LAB_PROOF}: no such set in tests/lab/sets.cmake")
    endif()
    set(tt_lab_work "")
    set(tt_lab_answers "")
    foreach(entry IN LISTS tt_lab_set_${TT_LAB_PROOF})
      string(REPLACE "|" ";" fields "${entry}")
      list(GET fields 0 id)
      list(GET fields 1 submission)
      if(submission STREQUAL "start")
        list(APPEND tt_lab_answers ${TT_LAB_DIR}/start/${id}.txt)
      elseif(submission STREQUAL "model")
        # the model answer, graded as a submission (its failures come from another exercise)
      else()
        list(APPEND tt_lab_answers ${PROJECT_SOURCE_DIR}/tests/lab/wrong/${submission})
      endif()
    endforeach()
  endif()

  set(tt_lab_outputs "")
  foreach(id IN LISTS TT_LAB_EXERCISES)
    set(file ${TT_LAB_FILE_${id}})
    set(solution ${PROJECT_SOURCE_DIR}/steps/${id}/${file})
    set(sources ${tt_lab_answers})
    if(tt_lab_work)
      set(work ${tt_lab_work}/${id}/${file})
      if(NOT EXISTS ${work})
        tt_lab_header(${id} ${file} header)
        file(MAKE_DIRECTORY ${tt_lab_work}/${id})
        tt_lab_splice(${solution} ${work} ${TT_LAB_DIR}/start/${id}.txt OFF "${header}")
        message(STATUS "lab: made ${work}, exercise ${id}, for you to write")
      endif()
      list(APPEND sources ${work})
    endif()
    set(out ${TT_LAB_TREE}/${id}/${file})
    # The build-time splice: one `cmake -P` a file, rerun when the answer or the step changes.
    string(REPLACE ";" "|" sources_arg "${sources}")
    # The region check first (lab/check_regions.cpp): it stops the build, naming the file and
    # line, at a region that is not kernel code, and warns of edits outside the regions.
    add_custom_command(OUTPUT ${out}
      COMMAND $<TARGET_FILE:lab-regions> ${solution} ${sources}
      COMMAND ${CMAKE_COMMAND} -DSOLUTION=${solution} -DOUT=${out} "-DSOURCES=${sources_arg}"
              -P ${TT_LAB_DIR}/generate.cmake
      DEPENDS ${solution} ${sources} ${TT_LAB_DIR}/generate.cmake ${TT_LAB_DIR}/regions.cmake
              lab-regions
      COMMENT "lab: ${id}/${file} with your answer"
      VERBATIM)
    list(APPEND tt_lab_outputs ${out})
  endforeach()
  add_custom_target(tt_lab_sources DEPENDS ${tt_lab_outputs})
  # The report, from the template in the student's handout (its one copy).
  if(tt_lab_work AND NOT EXISTS ${tt_lab_work}/report.md)
    file(READ ${PROJECT_SOURCE_DIR}/docs/lab-student.md handout)
    set(open "<!-- report template -->\n```markdown\n")
    string(FIND "${handout}" "${open}" at)
    if(at EQUAL -1)
      message(FATAL_ERROR "docs/lab-student.md: no report template after its marker line")
    endif()
    string(LENGTH "${open}" skip)
    math(EXPR at "${at} + ${skip}")
    string(SUBSTRING "${handout}" ${at} -1 template)
    string(FIND "${template}" "\n```\n<!-- end -->" end)
    string(SUBSTRING "${template}" 0 ${end} template)
    file(WRITE ${tt_lab_work}/report.md "${template}\n")
    message(STATUS "lab: made ${tt_lab_work}/report.md, your report")
  endif()
  if(tt_lab_work)
    message(STATUS "lab: the exercises are built from your files in ${tt_lab_work}")
  endif()
endif()

# The hook of tt_add_step (steps/CMakeLists.txt): in a lab build, the step's library compiles
# the generated copy of its exercise's file, and finds the generated headers (04's
# padding.cuh, 07's swizzle.hpp, 08's diagonal.hpp) before the steps' own: a later step that
# includes one (05, 08) runs the student's own earlier answer.
function(tt_lab_step id lib)
  if(NOT TT_LAB)
    return()
  endif()
  target_include_directories(${lib} BEFORE PUBLIC ${TT_LAB_TREE})
  add_dependencies(${lib} tt_lab_sources)
  if(DEFINED TT_LAB_FILE_${id})
    get_target_property(sources ${lib} SOURCES)
    set(file ${TT_LAB_FILE_${id}})
    list(TRANSFORM sources REPLACE "^${file}$" "${TT_LAB_TREE}/${id}/${file}")
    set_property(TARGET ${lib} PROPERTY SOURCES ${sources})
  endif()
endfunction()
