// A cluster's kubeconfig for tests where no Kubernetes API server answers (helm's upgrade is
// stood in for, or the deployment must fail before reaching the cluster).

/** A whole kubeconfig (cluster, user with a token, context) whose server is a closed loopback port. */
export const UNREACHABLE_KUBECONFIG = `apiVersion: v1
kind: Config
clusters:
- name: c
  cluster: { server: "https://127.0.0.1:1" }
users:
- name: u
  user: { token: kube-secret }
contexts:
- name: x
  context: { cluster: c, user: u }
current-context: x
`
