// Command kubecp is one binary holding the real Kubernetes components and etcd: the control
// plane, and the node agents of the real nodes (kubelet, kube-proxy). One binary, so that the
// packages they share are compiled and linked once. Its first argument names the component;
// the rest are that component's own flags.
//
//	kubecp etcd --data-dir ...
//	kubecp kube-apiserver --etcd-servers ...
//	kubecp kube-controller-manager --kubeconfig ...
//	kubecp kube-scheduler --kubeconfig ...
//	kubecp kubelet --config ...
//	kubecp kube-proxy --config ...
package main

import (
	"fmt"
	"os"
	_ "time/tzdata" // CronJob time zones, as the upstream binaries do

	"github.com/spf13/cobra"
	"go.etcd.io/etcd/server/v3/etcdmain"
	"k8s.io/component-base/cli"
	_ "k8s.io/component-base/logs/json/register"          // the JSON log format
	_ "k8s.io/component-base/metrics/prometheus/clientgo" // client-go metrics
	_ "k8s.io/component-base/metrics/prometheus/version"  // the version metric
	apiserver "k8s.io/kubernetes/cmd/kube-apiserver/app"
	controllermanager "k8s.io/kubernetes/cmd/kube-controller-manager/app"
	proxy "k8s.io/kubernetes/cmd/kube-proxy/app"
	scheduler "k8s.io/kubernetes/cmd/kube-scheduler/app"
	kubelet "k8s.io/kubernetes/cmd/kubelet/app"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: kubecp etcd|kube-apiserver|kube-controller-manager|kube-scheduler|kubelet|kube-proxy [flags]")
		os.Exit(2)
	}
	name, args := os.Args[1], os.Args[2:]
	if name == "etcd" {
		etcdmain.Main(append([]string{"etcd"}, args...))
		return
	}
	var command *cobra.Command
	switch name {
	case "kube-apiserver":
		command = apiserver.NewAPIServerCommand()
	case "kube-controller-manager":
		command = controllermanager.NewControllerManagerCommand()
	case "kube-scheduler":
		command = scheduler.NewSchedulerCommand()
	case "kubelet":
		command = kubelet.NewKubeletCommand()
	case "kube-proxy":
		command = proxy.NewProxyCommand()
	default:
		fmt.Fprintf(os.Stderr, "kubecp: unknown component %q\n", name)
		os.Exit(2)
	}
	command.SetArgs(args)
	os.Exit(cli.Run(command))
}
