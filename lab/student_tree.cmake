# Writes the steps' sources as a student receives them, for the student edition of the site
# (docs/CMakeLists.txt, target docs-student): every file of steps/ copied to OUT, except each
# exercise's file, whose regions hold the exercise's start (lab/start/<id>.txt) instead of the
# model answer, and each exercise's plain CUDA file (steps/<id>/plain.cu), left out. No #line directives: the site shows the text as the student's file has it.
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
  # The step's plain CUDA file is the same kernel without the course's code: the answer too.
  file(REMOVE "${OUT}/${id}/plain.cu")
endforeach()
