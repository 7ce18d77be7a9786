#include "RouteTilesAllocator.h"
#include <jemalloc/jemalloc.h>
#include <stdint.h>
#include <stdlib.h>

// jemalloc's options for this executable, read once at its first allocation; MALLOC_CONF in the environment still
// overrides any of them (jemalloc reads this string first, then the variable).
// - background_thread: a thread of jemalloc's own gives unused pages back to the kernel, off the request threads.
// - dirty_decay_ms:1000 and muzzy_decay_ms:0: freed pages go back after about a second instead of ten, so that the
//   garbage of a start-up (every route's tiler built on every core) or of a burst of writes is not kept resident.
// With them a 10,000-vehicle fleet held less memory than under glibc's malloc, idle and at its peak
// (Docs/BENCHMARKS.md, "The seventh round").
const char *malloc_conf = "background_thread:true,dirty_decay_ms:1000,muzzy_decay_ms:0";

// The bytes this thread has allocated through jemalloc, or 0 when it cannot say.
static uint64_t allocated_here(void) {
    uint64_t bytes = 0;
    size_t size = sizeof(bytes);
    if (mallctl("thread.allocated", &bytes, &size, NULL, 0) != 0) {
        return 0;
    }
    return bytes;
}

const char *routetiles_allocator_version(void) {
    // Linked is not enough: the process's `malloc` (which the Swift runtime calls too) must be jemalloc's, not one
    // that a preload or the link order put first. A block taken through plain `malloc` shows in jemalloc's count of
    // this thread's allocations only if it is.
    const size_t probe = 1 << 20;
    uint64_t before = allocated_here();
    void *volatile block = malloc(probe);
    uint64_t after = allocated_here();
    free(block);
    if (block == NULL || after < before + probe) {
        return NULL;
    }
    const char *version = NULL;
    size_t size = sizeof(version);
    if (mallctl("version", &version, &size, NULL, 0) != 0) {
        return NULL;
    }
    return version;
}
