// Package test checks deploy/kubernetes: its manifests rendered by
// Kustomize's own Go module, decoded strictly into the Kubernetes API's
// types, and checked for what the deployment promises (render_test.go);
// and, under `make test-k8s`, accepted by a real kube-apiserver backed by a
// real etcd (apiserver_test.go).
//
// It is a Go module of its own so that Kustomize and the Kubernetes API
// types never enter Boris's go.mod.
package test
