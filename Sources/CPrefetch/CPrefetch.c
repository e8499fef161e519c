// The prefetch hint lives in include/CPrefetch.h (static inline); SwiftPM needs one source file
// for a C target.
#include "CPrefetch.h"
