// The real-node tier's own container images (testenv/nodes/): a pause binary for the pod
// sandbox and a small workload, both static, built here because no registry is reachable.
module palisade.local/testenv/nodes/images

go 1.24.0
