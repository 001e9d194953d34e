import type { ResourceRef } from "../client.js";

export const CERTIFICATE_SIGNING_REQUESTS: ResourceRef = {
  group: "certificates.k8s.io",
  version: "v1",
  resource: "certificatesigningrequests",
  namespaced: false,
};
