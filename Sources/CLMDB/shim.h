#ifndef LARDER_CLMDB_SHIM_H
#define LARDER_CLMDB_SHIM_H
#include <lmdb.h>
#endif
