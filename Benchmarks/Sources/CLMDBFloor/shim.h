// The C floor of the benchmarks: LMDB as its C API is, without any Swift wrapper.
#include <lmdb.h>
