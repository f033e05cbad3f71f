tessera_library_test(test_video_io ${CMAKE_CURRENT_LIST_DIR}/test_io.cpp)
tessera_library_test(test_video_bspline ${CMAKE_CURRENT_LIST_DIR}/test_bspline.cpp)
tessera_library_test(test_video_bilateral ${CMAKE_CURRENT_LIST_DIR}/test_bilateral.cpp)
tessera_library_test(test_video_dibr ${CMAKE_CURRENT_LIST_DIR}/test_dibr.cpp)

# The video workload's CLI (image families): bad files and options exit 2
# with one line and leave no output behind.
set(_vout ${CMAKE_CURRENT_BINARY_DIR}/cli_out/video)
file(MAKE_DIRECTORY ${_vout})
file(WRITE ${_vout}/zero_width.y4m "YUV4MPEG2 W0 H10 C420jpeg\nFRAME\n")
file(WRITE ${_vout}/huge.y4m "YUV4MPEG2 W16384 H16384 C444\nFRAME\nxyz")
file(WRITE ${_vout}/big_truncated.y4m "YUV4MPEG2 W8192 H8192 Cmono\nFRAME\nxyz")
file(WRITE ${_vout}/truncated.y4m "YUV4MPEG2 W16 H16 C420jpeg\nFRAME\nabc")
string(REPEAT "a" 384 _frame16)
file(WRITE ${_vout}/second_truncated.y4m "YUV4MPEG2 W16 H16 C420jpeg\nFRAME\n${_frame16}FRAME\nabc")
file(WRITE ${_vout}/no_frames.y4m "YUV4MPEG2 W16 H16 C420jpeg\n")
file(WRITE ${_vout}/p6.y4m "P6\n2 2\n255\n0123456789ab")
function(tessera_video_cli_test name code regex)
  add_test(NAME cli_video_${name} COMMAND ${CMAKE_COMMAND} -DEXPECT_CODE=${code} "-DEXPECT_REGEX=${regex}"
    -DOUTPUT_DIR=${_vout}/out_${name} "-DCMD=$<TARGET_FILE:tessera_cli>;${ARGN}"
    -P ${CMAKE_CURRENT_LIST_DIR}/cli_no_output.cmake)
  set_tests_properties(cli_video_${name} PROPERTIES ENVIRONMENT "OMP_PROC_BIND=false;OMP_NUM_THREADS=2"
    SKIP_REGULAR_EXPRESSION "no CUDA device is visible")
endfunction()
set(_vsmall --repeats 1 --warmup 0 --quiet)
tessera_video_cli_test(bad_kernel 2 "unknown video kernel 'blur'" run video --kernels blur)
tessera_video_cli_test(missing_input 2 "cannot open" run video --kernels bspline --input ${_vout}/nope.y4m
  --output ${_vout}/out_missing_input/o.y4m)
tessera_video_cli_test(zero_width 2 "width and height must be positive" run video --kernels bspline
  --input ${_vout}/zero_width.y4m --output ${_vout}/out_zero_width/o.y4m)
tessera_video_cli_test(huge 2 "beyond the limit" run video --kernels bspline --input ${_vout}/huge.y4m
  --output ${_vout}/out_huge/o.y4m)
tessera_video_cli_test(big_truncated 2 "truncated frame" run video --kernels bspline --scale 1
  --input ${_vout}/big_truncated.y4m --output ${_vout}/out_big_truncated/o.y4m)
tessera_video_cli_test(truncated 2 "truncated frame" run video --kernels bilateral --input ${_vout}/truncated.y4m
  --output ${_vout}/out_truncated/o.y4m)
tessera_video_cli_test(second_truncated 2 "truncated frame 1" run video --kernels bspline --scale 2
  --input ${_vout}/second_truncated.y4m --output ${_vout}/out_second_truncated/o.y4m ${_vsmall})
tessera_video_cli_test(no_frames 2 "holds no frame" run video --kernels bspline --input ${_vout}/no_frames.y4m
  --output ${_vout}/out_no_frames/o.y4m)
tessera_video_cli_test(not_y4m 2 "not a YUV4MPEG2 stream" run video --kernels bspline --input ${_vout}/p6.y4m
  --output ${_vout}/out_not_y4m/o.y4m)
tessera_video_cli_test(bad_scale 2 "--scale must be between" run video --kernels bspline --scale 0)
tessera_video_cli_test(scale_too_large 2 "beyond the limit" run video --kernels bspline --bspline-size 4000x3000
  --scale 16)
tessera_video_cli_test(bad_size 2 "--dibr-size expects WxH" run video --kernels dibr --dibr-size 800)
tessera_video_cli_test(output_dir 2 "does not exist" run video --kernels bspline --output ${_vout}/nodir/o.y4m)
tessera_video_cli_test(output_needs_family 2 "--output needs --kernels with bspline, bilateral or conv3d" run video
  --kernels dibr --output ${_vout}/out_output_needs_family/o.y4m)
tessera_video_cli_test(bad_k 2 "--bilateral-k must be odd" run video --kernels bilateral --bilateral-k 4)
tessera_video_cli_test(small 0 "bilateral .*ok" run video --kernels bspline,dibr,bilateral --bspline-size 30x22
  --scale 3 --dibr-size 64x48 --bilateral-size 64x40 ${_vsmall})
tessera_cli_test(video_compare_small 0 "dibr-sorted" compare video --kernels bspline,dibr,bilateral
  --bspline-size 18x14 --scale 2 --dibr-size 40x30 --bilateral-size 40x30 ${_vsmall})
tessera_cli_test(video_output 0 "wrote .*up.y4m" run video --kernels bspline --bspline-size 18x14 --scale 2
  --output ${_out}/up.y4m ${_vsmall})
