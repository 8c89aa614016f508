# A student's copy of a step's file, edited outside its regions: the region check must warn
# (the build takes only the regions) and still pass; the unedited copy must give no warning.
#   cmake -DTOOL=lab-regions -DSOLUTION=steps/04-padding/padding.cuh -DWORK=dir -P outside_edit.cmake
file(READ "${SOLUTION}" text)
file(MAKE_DIRECTORY "${WORK}")
file(WRITE "${WORK}/copy.cu" "// Lab exercise, your copy.\n\n${text}")
execute_process(COMMAND "${TOOL}" "${SOLUTION}" "${WORK}/copy.cu" RESULT_VARIABLE rc
                ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR err MATCHES "warning")
  message(FATAL_ERROR "an unedited copy: exit ${rc}, '${err}'")
endif()
string(REPLACE "namespace step04 {" "namespace step04 {\nconstexpr int kMine = 1;" edited "${text}")
if(edited STREQUAL text)
  message(FATAL_ERROR "${SOLUTION} has no 'namespace step04 {' to edit after")
endif()
file(WRITE "${WORK}/copy.cu" "// Lab exercise, your copy.\n\n${edited}")
execute_process(COMMAND "${TOOL}" "${SOLUTION}" "${WORK}/copy.cu" RESULT_VARIABLE rc
                ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT err MATCHES "copy.cu:[0-9]+: warning: this file was edited outside")
  message(FATAL_ERROR "an edit outside the regions: exit ${rc}, '${err}'")
endif()
message(STATUS "warned: ${err}")
