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
  tessera_cli_test(gluon_bad_lanes 2 "lanes" run gluon --lanes 3)
  tessera_cli_test(gluon_too_many_lanes 2 "lanes" run gluon --lanes 64)
  # The run's last line is its cross section.
  tessera_cli_test(gluon_run 0 "[\r\n]sigma = [0-9][.][0-9]+e[+-][0-9]+ [+]- [0-9][.][0-9]e[+-][0-9]+ pb[\r\n]*$"
    run gluon --n 4 --events 2e4 --precision double --repeats 1 --quiet)
  # compare prints the paper's Table 2 row of this n beside ours.
  tessera_cli_test(gluon_compare_table2 0
    "Paper Table 2.*[\r\n] +4 +[^ ]+( s)? +2[.]975e-08 s +[^ ]+ +[0-9.]+e-0[0-9] s +8[.]753e-06 s +[0-9.]+ +[^ ]+ +294[\r\n]ours: GPU [^,]+, CPU "
    compare gluon --n 4 --events 1e4 --precision double --repeats 1 --warmup 0 --quiet --no-roofline)
  # --output: refused before the run (one line, exit 2, nothing written).
  tessera_cli_test(gluon_output_bad_path 2 "does not exist or is not writable" run gluon --output /nonexistent-dir/r.h5)
  set(_gout ${CMAKE_CURRENT_BINARY_DIR}/gluon_out)
  foreach(_case "bad_n;--n must be;--n;99" "compare;goes with 'tessera run'" "csv_clash;is also a file of --output;--csv;@/r.csv")
    list(POP_FRONT _case _name _regex)
    list(TRANSFORM _case REPLACE "^@" "${_gout}/${_name}")
    set(_verb run)
    if(_name STREQUAL "compare")
      set(_verb compare)
    endif()
    add_test(NAME cli_gluon_output_${_name} COMMAND ${CMAKE_COMMAND} -DEXPECT_CODE=2 "-DEXPECT_REGEX=${_regex}"
      -DOUTPUT_DIR=${_gout}/${_name}
      "-DCMD=$<TARGET_FILE:tessera_cli>;${_verb};gluon;--events;1e3;--output;${_gout}/${_name}/r.h5;${_case}"
      -P ${CMAKE_CURRENT_LIST_DIR}/../video/cli_no_output.cmake)
  endforeach()
endif()

if(TESSERA_ENABLE_HDF5 AND TARGET tessera_cli)
  # The files of --output read back (HDF5 and CSV), against the library.
  tessera_unit_test(test_gluon_output ${CMAKE_CURRENT_LIST_DIR}/test_gluon_output.cpp)
  target_link_libraries(test_gluon_output PRIVATE HDF5::HDF5)
endif()

if(TESSERA_ENABLE_MPI AND TARGET tessera_cli)
  # 1 and 3 ranks: the same sigma to 1e-12 (disjoint ranges of one stream, sums added).
  add_executable(gluon_same_sigma ${CMAKE_CURRENT_LIST_DIR}/gluon_same_sigma.cpp)
  target_link_libraries(gluon_same_sigma PRIVATE nlohmann_json::nlohmann_json)
  add_test(NAME cli_gluon_mpi_same_sigma COMMAND ${CMAKE_COMMAND}
    "-DMPIRUN=${TESSERA_MPIEXEC};${MPIEXEC_NUMPROC_FLAG}" -DDIR=${CMAKE_CURRENT_BINARY_DIR}/gluon_mpi
    "-DRUN=$<TARGET_FILE:tessera_cli>;run;gluon;--n;4;--events;3e4;--precision;double;--pdf;toy;--repeats;1;--warmup;0;--quiet;--no-roofline"
    -DSAME=$<TARGET_FILE:gluon_same_sigma> -P ${CMAKE_CURRENT_LIST_DIR}/gluon_mpi_same_sigma.cmake)
  set_tests_properties(cli_gluon_mpi_same_sigma PROPERTIES TIMEOUT 120
    ENVIRONMENT "OMP_PROC_BIND=false;OMP_NUM_THREADS=1" SKIP_REGULAR_EXPRESSION "no CUDA device is visible")
endif()
