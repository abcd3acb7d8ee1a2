package gpuctl

// The API's models (types.gen.go) are generated from the committed contract, docs/openapi.json,
// by oapi-codegen at the version below; `go generate ./...` here (or `make sdk-go` at the
// repository's root) writes them again. The client around them is written by hand: the
// generator's own client would need its runtime module, and the SDK depends on nothing but the
// standard library and one WebSocket library.
//
//go:generate go run github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen@v2.8.2 -config oapi-codegen.yaml ../../docs/openapi.json

// GeneratorVersion is the oapi-codegen version that wrote types.gen.go.
const GeneratorVersion = "v2.8.2"
