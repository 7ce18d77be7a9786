// RouteTiles, the library: one import for every stage of the core, each a module of its own so that the compiler
// keeps the data flowing one way (Docs/ARCHITECTURE.md, "The modules"). Lower modules never import higher ones.
@_exported import RouteTilesModel
@_exported import RouteTilesGeo
@_exported import RouteTilesInput
@_exported import RouteTilesTiling
@_exported import RouteTilesRaster
@_exported import RouteTilesBuild
@_exported import RouteTilesSQLite
@_exported import RouteTilesStores
@_exported import RouteTilesRouteStore
@_exported import RouteTilesLive
@_exported import RouteTilesServing
