# The gluon workload's library part is header-only (tessera/gluon/*.hpp) plus
# the native kernels in backends/cuda/gluon.
