import ArgumentParser
import RouteTiles

@main
struct RouteTilesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "routetiles",
        abstract: "Cut routes (GPS tracks, directions, flight paths) into Mapbox Vector Tiles.",
        discussion: """
            Routes are projected once into Web Mercator, cut per z/x/y tile with off-screen segments culled, \
            simplified per zoom and written as gzip-compressed MVT 2.1.
            """,
        version: "\(RouteTilesVersion.string) (allocator: \(Allocator.name))",
        subcommands: [BuildCommand.self, JoinCommand.self, ServeCommand.self, LoadCommand.self, SeedCommand.self, ConvertCommand.self, CheckCommand.self,
                      InspectCommand.self])
}
