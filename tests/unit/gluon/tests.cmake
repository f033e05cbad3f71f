tessera_library_test(test_gluon ${CMAKE_CURRENT_LIST_DIR}/test_gluon_amplitude.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_gluon_sigma.cpp ${CMAKE_CURRENT_LIST_DIR}/test_gluon_lhagrid.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_gluon_histograms.cpp ${CMAKE_CURRENT_LIST_DIR}/test_gluon_dglap.cpp)

# The CLI: bad input is one line and exit 2; a small run prints sigma.
if(TARGET tessera_cli)
  tessera_cli_test(gluon_small_n 2 "n" run gluon --n 3)
  tessera_cli_test(gluon_large_n 2 "n" run gluon --n 99)
  tessera_cli_test(gluon_zero_events 2 "events" run gluon --events 0)
  tessera_cli_test(gluon_bad_events 2 "events" run gluon --events 1e2.5)
  tessera_cli_test(gluon_negative_energy 2 "sqrt-s" run gluon --sqrt-s -5)
  tessera_cli_test(gluon_no_phase_space 2 "phase space" run gluon --n 8 --sqrt-s 100)
  tessera_cli_test(gluon_missing_pdf 2 "PDF set" run gluon --pdf /nonexistent/set)
  tessera_cli_test(gluon_unknown_pdf 2 "not found" run gluon --pdf nosuchset)
  tessera_cli_test(gluon_bad_preset 2 "preset" run gluon --preset table9)
  tessera_cli_test(gluon_run 0 "sigma" run gluon --n 4 --events 2e4 --precision double --repeats 1)
endif()
