/// The HTTP API's contract, `openapi.json` (OpenAPI 3.1): every operation of the dispatch table of a live server (`ServerAPI`), its parameters,
/// its bodies and answers, the `Error` schema every error uses, and the bearer scheme of the writes.
///
/// The file `Sources/RouteTilesServer/OpenAPI/openapi.json` is the one source: it is compiled into the binary
/// (SwiftPM's `embedInCode`, as the viewer's files are) and served as it is at `GET /openapi.json`;
/// `Docs/openapi.json` is a symbolic link to it. `OpenAPIContractTests` checks that the table and the document name
/// the same operations, and schemathesis (`Tests/contract/schemathesis.sh`, in CI) that a real server answers as
/// the document says.
enum OpenAPIDocument {
    static let json: [UInt8] = PackageResources.openapi_json
}
