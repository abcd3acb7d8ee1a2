// Command coredns is CoreDNS (github.com/coredns/coredns) with only the plugins the local
// cluster's DNS uses: names of Services and pods from the API server (kubernetes), bound to the
// real nodes' bridge address (bind), with its health and readiness endpoints. No plugin sends
// a query elsewhere, so a name outside the cluster is answered by no upstream.
package main

import (
	"github.com/coredns/coredns/core/dnsserver"
	"github.com/coredns/coredns/coremain"
	_ "github.com/coredns/coredns/plugin/bind"
	_ "github.com/coredns/coredns/plugin/cache"
	_ "github.com/coredns/coredns/plugin/errors"
	_ "github.com/coredns/coredns/plugin/health"
	_ "github.com/coredns/coredns/plugin/kubernetes"
	_ "github.com/coredns/coredns/plugin/log"
	_ "github.com/coredns/coredns/plugin/ready"
)

// The plugins' order in a query's chain (CoreDNS's own plugin.cfg order, these only).
func init() {
	dnsserver.Directives = []string{"bind", "ready", "health", "errors", "log", "cache", "kubernetes"}
}

func main() {
	coremain.Run()
}
