# Copies the part of a MathJax 2 installation that the site uses (TeX input, HTML-CSS output
# with the TeX web fonts, the extensions) from SRC to DST. Run by the `docs` target:
#
#   cmake -DSRC=/usr/share/javascript/mathjax -DDST=<build>/docs/html/mathjax -P copy_mathjax.cmake
#
# Symbolic links (some distributions link the fonts from another package) are followed, and
# files are only rewritten when they changed.
if(NOT SRC OR NOT DST)
  message(FATAL_ERROR "copy_mathjax.cmake: pass -DSRC=<MathJax folder> -DDST=<destination>")
endif()

# Single files, then whole folders (relative to SRC).
set(files
  MathJax.js
  config/TeX-AMS_HTML.js
  jax/output/HTML-CSS/config.js
  jax/output/HTML-CSS/jax.js
  jax/output/HTML-CSS/imageFonts.js)
set(folders
  extensions
  jax/input/TeX
  jax/element/mml
  jax/output/HTML-CSS/autoload
  jax/output/HTML-CSS/fonts/TeX
  fonts/HTML-CSS/TeX/woff
  fonts/HTML-CSS/TeX/otf
  localization/en)

foreach(dir IN LISTS folders)
  if(NOT IS_DIRECTORY ${SRC}/${dir})
    message(FATAL_ERROR "copy_mathjax.cmake: ${SRC}/${dir} is missing: is this MathJax 2?")
  endif()
  file(GLOB_RECURSE found FOLLOW_SYMLINKS RELATIVE ${SRC} ${SRC}/${dir}/*)
  list(APPEND files ${found})
endforeach()

set(copied 0)
foreach(f IN LISTS files)
  if(NOT EXISTS ${SRC}/${f})
    message(FATAL_ERROR "copy_mathjax.cmake: ${SRC}/${f} is missing: is this MathJax 2?")
  endif()
  get_filename_component(dir ${DST}/${f} DIRECTORY)
  file(MAKE_DIRECTORY ${dir})
  file(COPY_FILE ${SRC}/${f} ${DST}/${f} ONLY_IF_DIFFERENT)
  math(EXPR copied "${copied} + 1")
endforeach()
message(STATUS "MathJax: ${copied} files in ${DST}")
