/**
 * `@kubekit/generic-controlplane/storage/etcd`: the etcd v3 backend, an entry of its own so that
 * users of the embedded backends never load the gRPC client.
 */
export { createEtcdStorage, type EtcdStorageOptions } from "./etcd.js";
