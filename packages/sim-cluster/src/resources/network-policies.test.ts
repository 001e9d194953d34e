import { describe, expect, it } from "vitest";
import { validateIngress } from "./ingresses.js";
import { validateNetworkPolicy } from "./network-policies.js";

describe("ValidateNetworkPolicySpec", () => {
  it("needs an except within the ipBlock's cidr, a numeric port below endPort, and known policy types", () => {
    const errors = validateNetworkPolicy({
      spec: {
        podSelector: {},
        ingress: [
          {
            from: [{ ipBlock: { cidr: "10.0.0.0/16", except: ["10.1.0.0/24", "10.0.1.0/24"] } }, {}],
            ports: [
              { port: "http", endPort: 90 },
              { port: 100, endPort: 90 },
            ],
          },
        ],
        policyTypes: ["Ingress", "Sideways"],
      },
    });
    expect(errors.map((e) => `${e.field}: ${e.detail}`)).toEqual([
      "spec.ingress[0].ports[0].endPort: may not be specified when `port` is non-numeric",
      "spec.ingress[0].ports[1].endPort: must be greater than or equal to `port`",
      "spec.ingress[0].from[0].ipBlock.except[0]: must be a strict subset of `cidr`",
      "spec.ingress[0].from[1]: must specify a peer",
      'spec.policyTypes[1]: supported values: "Ingress", "Egress"',
    ]);
  });
});

describe("ValidateIngressSpec", () => {
  it("refuses an IP as a host, a relative Prefix path, and a backend with both a service and a resource", () => {
    const errors = validateIngress({
      spec: {
        rules: [
          {
            host: "10.0.0.1",
            http: {
              paths: [
                {
                  path: "rel",
                  pathType: "Prefix",
                  backend: { service: { name: "s", port: { number: 80 } }, resource: { kind: "K", name: "n" } },
                },
              ],
            },
          },
        ],
      },
    });
    expect(errors.map((e) => `${e.field}: ${e.detail}`)).toEqual([
      "spec.rules[0].host: must be a DNS name, not an IP address",
      "spec.rules[0].http.paths[0].path: must be an absolute path",
      "spec.rules[0].http.paths[0].backend: cannot set both resource and service backends",
    ]);
  });
});
