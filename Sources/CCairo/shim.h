#ifndef ROUTETILES_CCAIRO_SHIM_H
#define ROUTETILES_CCAIRO_SHIM_H
#include <cairo/cairo.h>
#endif
