module github.com/gpuctl/gpuctl/sdk/go

go 1.22

require github.com/coder/websocket v1.8.13
