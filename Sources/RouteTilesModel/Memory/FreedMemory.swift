#if canImport(Glibc)
import Glibc
#endif

/// Memory the process freed but the allocator still holds.
package enum FreedMemory {
    /// Gives the allocator's free memory back to the system (glibc's `malloc_trim`), for after a large transient
    /// load such as a server's start-up: the routes read from files, packed into a store and unpacked for the
    /// tilers are freed by then, but glibc keeps freed heap pages resident until told otherwise. Does nothing where
    /// there is no `malloc_trim`.
    package static func giveBack() {
        #if canImport(Glibc)
        // malloc.h is not part of the Glibc module: the function is found at run time.
        typealias Trim = @convention(c) (Int) -> Int32
        guard let process = dlopen(nil, RTLD_NOW), let symbol = dlsym(process, "malloc_trim") else { return }
        _ = unsafeBitCast(symbol, to: Trim.self)(0)
        #endif
    }
}
