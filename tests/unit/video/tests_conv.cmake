tessera_library_test(test_conv3d ${CMAKE_CURRENT_LIST_DIR}/test_conv3d.cpp ${CMAKE_CURRENT_LIST_DIR}/test_conv3d_fft.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_conv3d_window.cpp)
tessera_library_test(test_pairwise ${CMAKE_CURRENT_LIST_DIR}/test_pairwise.cpp)

# The conv3d and pairwise families through the CLI: small runs of every CPU
# variant (exit 0 only when each matched the reference), bad options exit 2.
set(_vc_small --repeats 1 --warmup 0 --quiet --no-roofline)
tessera_cli_test(video_conv3d_small 0 "conv3d +kokkos-streaming@Serial" compare video --kernels conv3d --k 3
  --width 37 --height 21 ${_vc_small}
  --variants serial-reference,kokkos-baseline@Serial,kokkos-shared@Serial,kokkos-streaming@Serial,kokkos-register@Serial)
tessera_cli_test(video_conv3d_valid 0 "conv3d +kokkos-register@Serial" compare video --kernels conv3d --k 5
  --padding valid --width 33 --height 19 ${_vc_small} --variants serial-reference,kokkos-streaming@Serial,kokkos-register@Serial)
tessera_cli_test(video_pairwise_small 0 "pairwise +kokkosblas-gemm@Serial" compare video --kernels pairwise
  --m 70 --n 45 --l 37 ${_vc_small} --variants serial-reference,kokkos-tiled@Serial,kokkosblas-gemm@Serial)
tessera_cli_test(video_conv3d_even_k 2 "must be odd" run video --kernels conv3d --k 4)
tessera_cli_test(video_conv3d_few_frames 2 "fewer than k" run video --kernels conv3d --k 5 --frames 3)
tessera_cli_test(video_conv3d_frame_too_small 2 "smaller than 15x15" run video --kernels conv3d --padding valid
  --k 15 --width 10 --height 10)
tessera_cli_test(video_conv3d_bad_padding 2 "padding" run video --kernels conv3d --padding full)
tessera_cli_test(video_pairwise_huge 2 "over 2\\^32" run video --kernels pairwise --m 1048576 --n 1048576)
# conv3d on the luma of a Y4M file (6 frames of 4 x 3: k = 3 needs k + 3).
set(_vc_dir ${CMAKE_CURRENT_BINARY_DIR}/cli_out/video_conv)
file(MAKE_DIRECTORY ${_vc_dir})
file(WRITE ${_vc_dir}/six.y4m "YUV4MPEG2 W4 H3 F25:1 Ip Cmono\n")
foreach(_i RANGE 5)
  file(APPEND ${_vc_dir}/six.y4m "FRAME\nab${_i}defghijk${_i}")
endforeach()
tessera_cli_test(video_conv3d_input 0 "luma of .*six.y4m" compare video --kernels conv3d --k 3
  --input ${_vc_dir}/six.y4m ${_vc_small} --variants serial-reference,kokkos-streaming@Serial,kokkos-register@Serial)
tessera_cli_test(video_conv3d_input_short 2 "holds 6 frames, k = 5 needs 8" run video --kernels conv3d --k 5
  --input ${_vc_dir}/six.y4m)
# Tables 1-5 in the paper's shape after compare: a list of k gives one row per
# k (conv3d-k<k>); the k = 5 row of Table 2 and the one-thread row of Table 3
# carry our times, the rest "–".
tessera_cli_test(video_paper_tables 0
  "conv3d-k5 +kokkos-register@OpenMP.*Table 2 of Lin[^\n]*\n[^\n]*\n[^\n]*\n[^\n]*\n  3 [^\n]*\n  5 +136 [^\n]* [0-9][0-9.]*\n.*one thread \\(cpu-1\\) +5,036 +[0-9.]+ \\(kokkos-tiled@Serial\\)"
  compare video --kernels conv3d,pairwise --k 5,3 --width 23 --height 11 --m 20 --n 17 --l 19 ${_vc_small}
  --variants kokkos-register@OpenMP,kokkos-tiled@Serial)
tessera_cli_test(video_conv3d_bad_k_list 2 "--k must be odd" run video --kernels conv3d --k 3,6)
tessera_cli_test(video_bad_size_preset 2 "--size" run video --size huge)
# The whole-clip sliding window: every output frame of the file written
# (4 of 6 at k = 3), a synthetic stream, and a clip whose 7th frame is cut
# short: exit 2 and no output left behind.
tessera_cli_test(video_conv3d_whole_clip 0 "conv3d-stream-host +kokkos@Serial .*ok.*wrote .*whole.y4m" run video
  --kernels conv3d --k 3 --taps mean --input ${_vc_dir}/six.y4m --output ${_vc_dir}/whole.y4m ${_vc_small}
  --variant kokkos@Serial)
tessera_cli_test(video_conv3d_stream_small 0 "conv3d-stream +kokkos@Serial .*ok.*conv3d-stream-host +kokkos@Serial .*ok"
  compare video --kernels conv3d --k 3 --stream 9 --width 21 --height 13 ${_vc_small} --variants kokkos@Serial)
tessera_cli_test(video_conv3d_output_needs_frames 2 "--output needs --input" run video --kernels conv3d
  --output ${_vc_dir}/none.y4m)
file(COPY_FILE ${_vc_dir}/six.y4m ${_vc_dir}/cut.y4m)
file(APPEND ${_vc_dir}/cut.y4m "FRAME\nabc")
add_test(NAME cli_video_conv3d_cut_clip COMMAND ${CMAKE_COMMAND} -DEXPECT_CODE=2 "-DEXPECT_REGEX=truncated frame"
  -DOUTPUT_DIR=${_vc_dir}/out_cut "-DCMD=$<TARGET_FILE:tessera_cli>;run;video;--kernels;conv3d;--k;3;--input;${_vc_dir}/cut.y4m;--output;${_vc_dir}/out_cut/o.y4m;--quiet"
  -P ${CMAKE_CURRENT_LIST_DIR}/cli_no_output.cmake)
