/// A raster tile's pixels as RGBA bytes (not premultiplied), row by row from the top left.
package struct RasterPixels: Sendable {
    package var size: Int
    package var rgba: [UInt8]

    /// The pixel at column `x`, row `y`: red, green, blue, alpha.
    package subscript(x x: Int, y y: Int) -> (red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8) {
        let at = (y * size + x) * 4
        return (rgba[at], rgba[at + 1], rgba[at + 2], rgba[at + 3])
    }
}
