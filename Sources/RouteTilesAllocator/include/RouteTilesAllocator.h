#ifndef ROUTETILES_ALLOCATOR_H
#define ROUTETILES_ALLOCATOR_H

// The `routetiles` executable allocates through jemalloc (Debian's libjemalloc-dev), linked by this target, in
// place of glibc's malloc: Docs/ARCHITECTURE.md, "The allocator", says why and what it measured.

// jemalloc's version ("5.3.0-0-g…") when the process's malloc is jemalloc's (checked by an allocation); NULL when
// it is not (a preloaded allocator, say, took its place).
const char *routetiles_allocator_version(void);

#endif
