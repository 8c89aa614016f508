# The lab's regions: the parts of a step's source that an exercise asks a student to write.
#
# A region is every line between two comment lines,
#
#     // LAB BEGIN 04-padding
#     ...
#     // LAB END
#
# in a step's source (the model answer), in a student's copy of it, or in a file that holds
# only regions (an exercise's start, lab/start/<id>.txt, or a wrong submission of the proof,
# tests/lab/wrong/*.txt). An exercise may have several regions in one file. They are matched
# by their order, or, in a file of regions, by the number a begin line gives
# (`// LAB BEGIN 05-multi-element part 2` replaces the second region alone). The text is
# handled with string(FIND) and string(SUBSTRING) only: C++ is full of the semicolons and
# brackets that CMake's list commands would split or mangle.

# Reads the regions of @p file into the caller's variables <prefix>_text (the whole file),
# <prefix>_count and, for i = 1 .. count: <prefix>_<i>_id (the exercise), <prefix>_<i>_part
# (the number after `part`, or empty), <prefix>_<i>_body (the lines between the two markers),
# <prefix>_<i>_begin and <prefix>_<i>_end (offsets of the body's first character and of the
# end marker's line) and <prefix>_<i>_line (the line number of the body's first line).
function(tt_lab_read_regions file prefix)
  file(READ "${file}" text)
  string(LENGTH "${text}" size)
  set(pos 0)
  set(count 0)
  while(pos LESS size)
    string(SUBSTRING "${text}" ${pos} -1 rest)
    string(FIND "${rest}" "// LAB BEGIN " at)
    if(at EQUAL -1)
      break()
    endif()
    math(EXPR begin_marker "${pos} + ${at}")
    # A marker is a line of its own (indentation aside), not a mention inside a comment.
    tt_lab_at_line_start("${text}" ${begin_marker} own_line)
    if(NOT own_line)
      math(EXPR pos "${begin_marker} + 13")
      continue()
    endif()
    string(SUBSTRING "${text}" ${begin_marker} -1 rest)
    string(FIND "${rest}" "\n" eol)
    if(eol EQUAL -1)
      message(FATAL_ERROR "${file}: a '// LAB BEGIN' line with no region after it")
    endif()
    string(SUBSTRING "${rest}" 0 ${eol} marker)
    if(NOT marker MATCHES "^// LAB BEGIN ([0-9][0-9]-[a-z0-9-]+)( part ([0-9]+))?")
      message(FATAL_ERROR "${file}: '${marker}' names no exercise (// LAB BEGIN 04-padding)")
    endif()
    set(id ${CMAKE_MATCH_1})
    set(part "${CMAKE_MATCH_3}")
    math(EXPR body_begin "${begin_marker} + ${eol} + 1")
    string(SUBSTRING "${text}" ${body_begin} -1 rest)
    string(REGEX MATCH "(^|\n)[ \t]*// LAB END" end_match "${rest}")
    string(FIND "${rest}" "${end_match}" end_at)
    if(NOT end_match STREQUAL "")
      string(FIND "${end_match}" "//" marker_at)
      math(EXPR end_at "${end_at} + ${marker_at}")
    else()
      set(end_at -1)
    endif()
    string(REGEX MATCH "(^|\n)[ \t]*// LAB BEGIN " next_match "${rest}")
    if(next_match STREQUAL "")
      set(next_begin -1)
    else()
      string(FIND "${rest}" "${next_match}" next_begin)
    endif()
    if(end_at EQUAL -1 OR (NOT next_begin EQUAL -1 AND next_begin LESS end_at))
      message(FATAL_ERROR "${file}: the region '// LAB BEGIN ${id}' has no '// LAB END' line "
                          "after it: write your answer between the two lines and keep both")
    endif()
    # The body ends where the end marker's line starts (its indentation is not the body's).
    string(SUBSTRING "${rest}" 0 ${end_at} before_end)
    string(FIND "${before_end}" "\n" last_newline REVERSE)
    if(last_newline EQUAL -1)
      set(body_size 0)
    else()
      math(EXPR body_size "${last_newline} + 1")
    endif()
    string(SUBSTRING "${rest}" 0 ${body_size} body)
    math(EXPR end_line_begin "${body_begin} + ${body_size}")
    string(SUBSTRING "${text}" 0 ${body_begin} head)
    string(REGEX MATCHALL "\n" newlines "${head}")
    list(LENGTH newlines line)
    math(EXPR line "${line} + 1")
    math(EXPR count "${count} + 1")
    set(${prefix}_${count}_id "${id}" PARENT_SCOPE)
    set(${prefix}_${count}_part "${part}" PARENT_SCOPE)
    set(${prefix}_${count}_body "${body}" PARENT_SCOPE)
    set(${prefix}_${count}_begin ${body_begin} PARENT_SCOPE)
    set(${prefix}_${count}_end ${end_line_begin} PARENT_SCOPE)
    set(${prefix}_${count}_line ${line} PARENT_SCOPE)
    math(EXPR pos "${body_begin} + ${end_at} + 10")
  endwhile()
  set(${prefix}_count ${count} PARENT_SCOPE)
  set(${prefix}_text "${text}" PARENT_SCOPE)
endfunction()

# Whether offset @p at of @p text starts its line (after spaces and tabs), into @p out.
function(tt_lab_at_line_start text at out)
  string(SUBSTRING "${text}" 0 ${at} head)
  string(FIND "${head}" "\n" newline REVERSE)
  math(EXPR from "${newline} + 1")
  string(SUBSTRING "${head}" ${from} -1 indent)
  if(indent MATCHES "^[ \t]*$")
    set(${out} ON PARENT_SCOPE)
  else()
    set(${out} OFF PARENT_SCOPE)
  endif()
endfunction()

# The line number of offset @p at in @p text, into @p out.
function(tt_lab_line_of text at out)
  string(SUBSTRING "${text}" 0 ${at} head)
  string(REGEX MATCHALL "\n" newlines "${head}")
  list(LENGTH newlines n)
  math(EXPR n "${n} + 1")
  set(${out} ${n} PARENT_SCOPE)
endfunction()

# Writes @p out: the solution @p solution with the body of each of its regions replaced by the
# same region (exercise and rank) of the first file of @p sources that has it, or left as it
# is when none has. With @p lines, #line directives make the compiler name the file and line
# each part came from, so that an error in a student's answer points into the student's file.
# @p header, when given, is put first. The file is written only when its text changes, so that
# an unchanged answer rebuilds nothing.
function(tt_lab_splice solution out sources lines header)
  tt_lab_read_regions("${solution}" sol)
  if(sol_count EQUAL 0)
    message(FATAL_ERROR "${solution}: no '// LAB BEGIN' region")
  endif()
  set(nsources 0)
  foreach(src IN LISTS sources)
    math(EXPR nsources "${nsources} + 1")
    tt_lab_read_regions("${src}" src${nsources})
    set(src${nsources}_file "${src}")
  endforeach()

  set(result "${header}")
  if(lines)
    string(APPEND result "#line 1 \"${solution}\"\n")
  endif()
  set(pos 0)
  foreach(i RANGE 1 ${sol_count})
    set(id "${sol_${i}_id}")
    # This region's rank among the solution's regions of its exercise, and their number.
    set(rank 0)
    set(total 0)
    foreach(j RANGE 1 ${sol_count})
      if(sol_${j}_id STREQUAL id)
        math(EXPR total "${total} + 1")
        if(j EQUAL i)
          set(rank ${total})
        endif()
      endif()
    endforeach()

    set(body "${sol_${i}_body}")
    set(from "${solution}")
    set(from_line ${sol_${i}_line})
    set(s 0)
    while(s LESS nsources)
      math(EXPR s "${s} + 1")
      # The source's regions of this exercise: a numbered one replaces that region alone, the
      # others are taken in order and must then be as many as the solution's.
      set(found 0)
      set(numbered OFF)
      set(chosen "")
      set(j 0)
      while(j LESS src${s}_count)
        math(EXPR j "${j} + 1")
        if(src${s}_${j}_id STREQUAL id)
          math(EXPR found "${found} + 1")
          if(NOT src${s}_${j}_part STREQUAL "")
            set(numbered ON)
            if(src${s}_${j}_part EQUAL rank)
              set(chosen ${j})
            endif()
          elseif(found EQUAL rank)
            set(chosen ${j})
          endif()
        endif()
      endwhile()
      if(found GREATER 0 AND NOT numbered AND NOT found EQUAL total)
        message(FATAL_ERROR "${src${s}_file} has ${found} region(s) '// LAB BEGIN ${id}', but "
                            "exercise ${id} has ${total} (${solution}): keep every "
                            "'// LAB BEGIN' and '// LAB END' line of your copy")
      endif()
      if(NOT chosen STREQUAL "")
        set(body "${src${s}_${chosen}_body}")
        set(from "${src${s}_file}")
        set(from_line ${src${s}_${chosen}_line})
        break()
      endif()
    endwhile()

    math(EXPR keep "${sol_${i}_begin} - ${pos}")
    string(SUBSTRING "${sol_text}" ${pos} ${keep} kept)
    string(APPEND result "${kept}")
    if(lines)
      string(APPEND result "#line ${from_line} \"${from}\"\n")
    endif()
    string(APPEND result "${body}")
    if(lines)
      tt_lab_line_of("${sol_text}" ${sol_${i}_end} end_line)
      string(APPEND result "#line ${end_line} \"${solution}\"\n")
    endif()
    set(pos ${sol_${i}_end})
  endforeach()
  string(SUBSTRING "${sol_text}" ${pos} -1 tail)
  string(APPEND result "${tail}")

  if(EXISTS "${out}")
    file(READ "${out}" old)
    if(old STREQUAL result)
      return()
    endif()
  endif()
  file(WRITE "${out}" "${result}")
endfunction()
