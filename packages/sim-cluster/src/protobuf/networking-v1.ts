import type { ProtobufKinds } from "@kubekit/generic-controlplane/server";
import { qualified } from "./fields.js";

const PACKAGE = "k8s.io.api.networking.v1";

/**
 * networking.k8s.io/v1's messages of k8s.io/api 1.32 `generated.proto`, every field with upstream's number; maps as repeated
 * key/value entries. Fields are named as in JSON: upstream's proto calls `apiGroup` `aPIGroup`, and the wire knows only numbers.
 */
const SOURCE = `
syntax = "proto2";
package k8s.io.api.networking.v1;

message HTTPIngressPath {
  optional string path = 1;
  optional string pathType = 3;
  optional IngressBackend backend = 2;
}

message HTTPIngressRuleValue {
  repeated HTTPIngressPath paths = 1;
}

message IPBlock {
  optional string cidr = 1;
  repeated string except = 2;
}

message Ingress {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional IngressSpec spec = 2;
  optional IngressStatus status = 3;
}

message IngressBackend {
  optional IngressServiceBackend service = 4;
  optional .k8s.io.api.core.v1.TypedLocalObjectReference resource = 3;
}

message IngressClass {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional IngressClassSpec spec = 2;
}

message IngressClassParametersReference {
  optional string apiGroup = 1;
  optional string kind = 2;
  optional string name = 3;
  optional string scope = 4;
  optional string namespace = 5;
}

message IngressClassSpec {
  optional string controller = 1;
  optional IngressClassParametersReference parameters = 2;
}

message IngressLoadBalancerIngress {
  optional string ip = 1;
  optional string hostname = 2;
  repeated IngressPortStatus ports = 4;
}

message IngressLoadBalancerStatus {
  repeated IngressLoadBalancerIngress ingress = 1;
}

message IngressPortStatus {
  optional int32 port = 1;
  optional string protocol = 2;
  optional string error = 3;
}

message IngressRule {
  optional string host = 1;
  optional IngressRuleValue ingressRuleValue = 2;
}

message IngressRuleValue {
  optional HTTPIngressRuleValue http = 1;
}

message IngressServiceBackend {
  optional string name = 1;
  optional ServiceBackendPort port = 2;
}

message IngressSpec {
  optional string ingressClassName = 4;
  optional IngressBackend defaultBackend = 1;
  repeated IngressTLS tls = 2;
  repeated IngressRule rules = 3;
}

message IngressStatus {
  optional IngressLoadBalancerStatus loadBalancer = 1;
}

message IngressTLS {
  repeated string hosts = 1;
  optional string secretName = 2;
}

message NetworkPolicy {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional NetworkPolicySpec spec = 2;
}

message NetworkPolicyEgressRule {
  repeated NetworkPolicyPort ports = 1;
  repeated NetworkPolicyPeer to = 2;
}

message NetworkPolicyIngressRule {
  repeated NetworkPolicyPort ports = 1;
  repeated NetworkPolicyPeer from = 2;
}

message NetworkPolicyPeer {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelector podSelector = 1;
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelector namespaceSelector = 2;
  optional IPBlock ipBlock = 3;
}

message NetworkPolicyPort {
  optional string protocol = 1;
  optional .k8s.io.apimachinery.pkg.util.intstr.IntOrString port = 2;
  optional int32 endPort = 3;
}

message NetworkPolicySpec {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelector podSelector = 1;
  repeated NetworkPolicyIngressRule ingress = 2;
  repeated NetworkPolicyEgressRule egress = 3;
  repeated string policyTypes = 4;
}

message ServiceBackendPort {
  optional string name = 1;
  optional int32 number = 2;
}
`;

export const NETWORKING_V1: ProtobufKinds = {
  sources: [SOURCE],
  kinds: {
    "networking.k8s.io/v1/Ingress": "k8s.io.api.networking.v1.Ingress",
    "networking.k8s.io/v1/IngressClass": "k8s.io.api.networking.v1.IngressClass",
    "networking.k8s.io/v1/NetworkPolicy": "k8s.io.api.networking.v1.NetworkPolicy",
  },
  // Go pointer fields: a zero on the wire was set on purpose.
  keepZeroFields: qualified(PACKAGE, {
    HTTPIngressPath: ["pathType"],
    IngressBackend: ["service", "resource"],
    IngressClassParametersReference: ["apiGroup", "scope", "namespace"],
    IngressClassSpec: ["parameters"],
    IngressPortStatus: ["error"],
    IngressRuleValue: ["http"],
    IngressSpec: ["ingressClassName", "defaultBackend"],
    NetworkPolicyPeer: ["podSelector", "namespaceSelector", "ipBlock"],
    NetworkPolicyPort: ["protocol", "port", "endPort"],
  }),
  // Go fields without `omitempty`.
  alwaysPresentFields: qualified(PACKAGE, {
    IPBlock: ["cidr"],
    IngressClassParametersReference: ["kind", "name"],
    IngressPortStatus: ["port", "protocol"],
    IngressServiceBackend: ["name"],
  }),
  // Go structs embedded with `json:",inline"`.
  inlineFields: qualified(PACKAGE, {
    IngressRule: ["ingressRuleValue"],
  }),
};
