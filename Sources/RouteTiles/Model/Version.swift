public enum RouteTilesVersion { public static let string = "0.1.0" }
