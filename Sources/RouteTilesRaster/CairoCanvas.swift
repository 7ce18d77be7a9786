import CCairo
import Foundation
import RouteTilesModel

/// A square ARGB image surface of cairo and its context, with the few drawing operations raster tiles use. One per
/// tile drawn; released when it goes.
final class CairoCanvas {
    let size: Int
    private let surface: OpaquePointer
    private let context: OpaquePointer

    init(size: Int) throws(RasterError) {
        self.size = size
        guard let surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(size), Int32(size)),
              cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS
        else { throw RasterError("cairo made no \(size)×\(size) surface") }
        guard let context = cairo_create(surface), cairo_status(context) == CAIRO_STATUS_SUCCESS else {
            cairo_surface_destroy(surface)
            throw RasterError("cairo made no context for a \(size)×\(size) surface")
        }
        self.surface = surface
        self.context = context
        cairo_set_line_join(context, CAIRO_LINE_JOIN_ROUND)
        cairo_set_line_cap(context, CAIRO_LINE_CAP_ROUND)
    }

    deinit {
        cairo_destroy(context)
        cairo_surface_destroy(surface)
    }

    private func setColour(_ colour: RGBAColor) {
        cairo_set_source_rgba(context, colour.red, colour.green, colour.blue, colour.alpha)
    }

    /// Strokes every part of `geometry` (in tile units of `unit` pixels each).
    func stroke(_ geometry: TileGeometry, unit: Double, width: Double, colour: RGBAColor) {
        guard width > 0, !geometry.isEmpty else { return }
        cairo_new_path(context)
        var start = 0
        for end in geometry.partEnds {
            guard end > start else { continue }
            let first = geometry.points[start]
            cairo_move_to(context, Double(first.x) * unit, Double(first.y) * unit)
            if end - start == 1 {
                // A part of one point: a dot, as a round cap draws it.
                cairo_line_to(context, Double(first.x) * unit, Double(first.y) * unit)
            }
            for point in geometry.points[(start + 1)..<end] {
                cairo_line_to(context, Double(point.x) * unit, Double(point.y) * unit)
            }
            start = end
        }
        cairo_set_line_width(context, width)
        setColour(colour)
        cairo_stroke(context)
    }

    /// A filled circle with an outline.
    func circle(x: Double, y: Double, radius: Double, fill: RGBAColor, stroke: RGBAColor, strokeWidth: Double) {
        cairo_new_path(context)
        cairo_arc(context, x, y, radius, 0, 2 * Double.pi)
        setColour(fill)
        cairo_fill_preserve(context)
        cairo_set_line_width(context, strokeWidth)
        setColour(stroke)
        cairo_stroke(context)
    }

    /// The heading arrow the viewer draws for `style.json`'s `routetiles-heading` image: 24 CSS pixels square,
    /// pointing north before it is turned by `bearing` (degrees clockwise), times `size`.
    func headingArrow(x: Double, y: Double, bearing: Double, size: Double, fill: RGBAColor, stroke: RGBAColor) {
        cairo_save(context)
        cairo_translate(context, x, y)
        cairo_rotate(context, bearing * Double.pi / 180)
        cairo_scale(context, size / 2, size / 2)
        // The viewer's 48-pixel canvas (at a pixel ratio of 2), centred.
        cairo_new_path(context)
        cairo_move_to(context, 0, -21)
        cairo_line_to(context, 14, 16)
        cairo_line_to(context, 0, 7)
        cairo_line_to(context, -14, 16)
        cairo_close_path(context)
        setColour(fill)
        cairo_fill_preserve(context)
        cairo_set_line_width(context, 3)
        setColour(stroke)
        cairo_stroke(context)
        cairo_restore(context)
    }

    /// The pixels, un-premultiplied RGBA, row by row (for tests and comparisons).
    func pixels() -> RasterPixels {
        cairo_surface_flush(surface)
        var rgba = [UInt8](repeating: 0, count: size * size * 4)
        guard let data = cairo_image_surface_get_data(surface) else { return RasterPixels(size: size, rgba: rgba) }
        let stride = Int(cairo_image_surface_get_stride(surface))
        for y in 0..<size {
            for x in 0..<size {
                // ARGB32: a native-endian 32-bit word per pixel, premultiplied.
                let word = data.advanced(by: y * stride + x * 4).withMemoryRebound(to: UInt32.self, capacity: 1) { $0.pointee }
                let a = Int(word >> 24), r = Int((word >> 16) & 0xFF), g = Int((word >> 8) & 0xFF), b = Int(word & 0xFF)
                let at = (y * size + x) * 4
                if a > 0 {
                    rgba[at] = UInt8(min(255, (r * 255 + a / 2) / a))
                    rgba[at + 1] = UInt8(min(255, (g * 255 + a / 2) / a))
                    rgba[at + 2] = UInt8(min(255, (b * 255 + a / 2) / a))
                }
                rgba[at + 3] = UInt8(a)
            }
        }
        return RasterPixels(size: size, rgba: rgba)
    }

    /// The surface as PNG bytes (`PNGWriter`, through the system zlib).
    func png() throws(RasterError) -> [UInt8] {
        cairo_surface_flush(surface)
        guard let data = cairo_image_surface_get_data(surface) else { throw RasterError("cairo gave no pixels") }
        return try PNGWriter.png(argb: UnsafeRawPointer(data), stride: Int(cairo_image_surface_get_stride(surface)), size: size)
    }

    /// The surface as PNG bytes written by cairo itself (through libpng), which `png()` replaced: for comparisons.
    func cairoPNG() throws(RasterError) -> [UInt8] {
        cairo_surface_flush(surface)
        final class Sink { var bytes: [UInt8] = [] }
        let sink = Sink()
        let status = cairo_surface_write_to_png_stream(surface, { closure, data, length in
            guard let closure, let data else { return CAIRO_STATUS_WRITE_ERROR }
            let sink = Unmanaged<Sink>.fromOpaque(closure).takeUnretainedValue()
            sink.bytes.append(contentsOf: UnsafeBufferPointer(start: data, count: Int(length)))
            return CAIRO_STATUS_SUCCESS
        }, Unmanaged.passUnretained(sink).toOpaque())
        guard status == CAIRO_STATUS_SUCCESS else {
            throw RasterError("cairo wrote no PNG: \(String(cString: cairo_status_to_string(status)))")
        }
        return withExtendedLifetime(sink) { sink.bytes }
    }
}
