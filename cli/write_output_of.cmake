# Runs TOPSIM with ARGUMENTS (words separated by spaces) and writes its standard output to OUTPUT;
# fails when the command does. The build writes what `topsim` generates from its command table
# (shell completion, the manual page) with it.
separate_arguments(words UNIX_COMMAND "${ARGUMENTS}")
execute_process(COMMAND ${TOPSIM} ${words} OUTPUT_FILE ${OUTPUT} RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  file(REMOVE ${OUTPUT})
  message(FATAL_ERROR "topsim ${ARGUMENTS} failed: ${status}")
endif()
