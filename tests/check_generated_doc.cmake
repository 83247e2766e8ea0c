# Fails when a generated document differs from what `ftdiag rules WHAT`
# prints now. Regenerate with: ftdiag rules WHAT > FILE
execute_process(COMMAND ${FTDIAG} rules ${WHAT} OUTPUT_VARIABLE generated RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "ftdiag rules ${WHAT} failed with ${status}")
endif()
file(READ ${FILE} committed)
if(NOT generated STREQUAL committed)
  message(FATAL_ERROR "${FILE} is out of date: regenerate it with `ftdiag rules ${WHAT} > ${FILE}`")
endif()
