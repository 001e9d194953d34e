import { join } from "node:path";
import { describeConsumer } from "../../../consumer-check.shared.js";

const claim = `apiVersion: kana.kubekit.io/v1alpha1
kind: NetworkClaim
metadata: { name: pods }
spec:
  addressSpace:
    - { reference: { group: "", resource: pods }, prefix: 10.244.0.0/16 }
`;

describeConsumer(join(import.meta.dirname, ".."), {
  // Itself, @kubekit/apimachinery, ipaddr.js, commander and yaml.
  budget: { packages: 5, mib: 4 },
  // The registry and the offline CLI need neither the API server library nor prom-client.
  leanCommands: [
    { title: "kana check works offline", argv: ["kana", "check", "claim.yaml"], files: { "claim.yaml": claim }, code: 0, stdout: /pods/ },
    {
      title: "kana claim says which package it needs, in one line, exit code 2",
      argv: ["kana", "claim", "-f", "claim.yaml", "--kubeconfig", "missing-kubeconfig"],
      files: { "claim.yaml": claim },
      code: 2,
      stderr:
        /^kana: kana claim talks to a cluster through @kubekit\/generic-controlplane, which is not installed: npm install @kubekit\/generic-controlplane\n$/,
    },
  ],
});
