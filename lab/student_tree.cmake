# Writes the steps' sources as a student receives them, for the student edition of the site
# (docs/CMakeLists.txt, target docs-student): every file of steps/ copied to OUT, except each
# exercise's file, whose regions hold the exercise's start (lab/start/<id>.txt) instead of the
# model answer, and every step's plain CUDA file (steps/<step>/plain.cu), left out: an
# exercise's is its answer, a later step's restates the answers it is built on (the padded
# tile, the swizzle, the column order). No #line directives: the site shows the text as the
# student's file has it. The student's package (scripts/student_package.py) takes its steps
# from here too.
#
#   cmake -DSOURCE=<repository> -DOUT=<folder> -P lab/student_tree.cmake
include(${CMAKE_CURRENT_LIST_DIR}/regions.cmake)
file(REMOVE_RECURSE "${OUT}")
file(COPY "${SOURCE}/steps/" DESTINATION "${OUT}")
file(GLOB starts "${SOURCE}/lab/start/*.txt")
foreach(start IN LISTS starts)
  get_filename_component(id "${start}" NAME_WE)
  # The exercise's file: the one file of steps/<id>/ that has a region of it.
  file(GLOB candidates "${SOURCE}/steps/${id}/*.cu" "${SOURCE}/steps/${id}/*.cuh"
                       "${SOURCE}/steps/${id}/*.hpp")
  set(found "")
  foreach(f IN LISTS candidates)
    file(READ "${f}" text)
    if(text MATCHES "// LAB BEGIN ${id}")
      set(found "${f}")
    endif()
  endforeach()
  if(NOT found)
    message(FATAL_ERROR "student_tree: no file of steps/${id}/ has a '// LAB BEGIN ${id}' region")
  endif()
  file(RELATIVE_PATH rel "${SOURCE}/steps" "${found}")
  file(REMOVE "${OUT}/${rel}")
  tt_lab_splice("${found}" "${OUT}/${rel}" "${start}" OFF "")
endforeach()
# A step's plain CUDA file is its kernel without the course's code: the answers too.
file(GLOB plains "${OUT}/*/plain.cu")
if(plains)
  file(REMOVE ${plains})
endif()
