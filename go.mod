module github.com/mjkoo/boris

go 1.26.0

require (
	github.com/bmatcuk/doublestar/v4 v4.10.4 // indirect
	github.com/caarlos0/env/v11 v11.4.2 // indirect
	github.com/google/go-cmp v0.7.0 // indirect
	github.com/modelcontextprotocol/go-sdk v1.8.0 // indirect
)
