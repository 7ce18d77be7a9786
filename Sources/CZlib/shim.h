#ifndef ROUTETILES_CZLIB_SHIM_H
#define ROUTETILES_CZLIB_SHIM_H
#include <zlib.h>

// deflateInit2 and inflateInit2 are macros, invisible to Swift: wrap them.
static inline int routetiles_deflateInit2(z_streamp strm, int level, int windowBits) {
    return deflateInit2(strm, level, Z_DEFLATED, windowBits, 8, Z_DEFAULT_STRATEGY);
}
static inline int routetiles_inflateInit2(z_streamp strm, int windowBits) {
    return inflateInit2(strm, windowBits);
}
#endif
