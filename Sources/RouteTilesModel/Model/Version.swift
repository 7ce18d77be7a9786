package enum RouteTilesVersion { package static let string = "0.1.0" }
