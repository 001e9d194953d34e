import { describe, expect, it } from "vitest";
import { UsageError } from "@kubekit/generic-controlplane";
import { DEFAULT_CERT_DIR, DEFAULT_KUBECONFIG, DEFAULT_PORT, parseOptions } from "./options.js";

const DEFAULT_SECURITY = {
  insecureHttp: false,
  certDir: DEFAULT_CERT_DIR,
  tlsSans: [],
  anonymousAuth: true,
  serviceAccountIssuers: [],
  apiAudiences: [],
  serviceAccountKeyFiles: [],
  serviceAccountMaxTokenExpiration: 0,
  rotateServiceAccountKey: false,
};

describe("parseOptions", () => {
  it("defaults to sqlite under .kubekit, port 8080 on loopback, request logs on", () => {
    expect(parseOptions([])).toEqual({
      host: "127.0.0.1",
      port: DEFAULT_PORT,
      storage: { kind: "sqlite", path: ".kubekit/data/state.db" },
      kubeconfig: DEFAULT_KUBECONFIG,
      compactionInterval: 300_000,
      requestTimeout: 60_000,
      shutdownDelay: 0,
      enablePriorityAndFairness: true,
      maxRequestsInflight: 400,
      maxMutatingRequestsInflight: 200,
      requestLog: true,
      controllers: ["*"],
      leaderElect: true,
      security: DEFAULT_SECURITY,
      authorizationModes: ["RBAC"],
      audit: undefined,
      help: false,
    });
  });

  it("reads every flag", () => {
    expect(
      parseOptions([
        "--port",
        "0",
        "--host",
        "::1",
        "--storage",
        "memory",
        "--kubeconfig",
        "/tmp/k",
        "--compaction-interval",
        "1h30m",
        "--shutdown-delay-duration",
        "5s",
        "--request-timeout",
        "30s",
        "--enable-priority-and-fairness=false",
        "--max-requests-inflight",
        "10",
        "--max-mutating-requests-inflight",
        "5",
        "--quiet",
        "--controllers=*,-garbagecollector",
        "--leader-elect=false",
      ]),
    ).toEqual({
      host: "::1",
      port: 0,
      storage: { kind: "memory" },
      kubeconfig: "/tmp/k",
      compactionInterval: 5_400_000,
      requestTimeout: 30_000,
      shutdownDelay: 5000,
      enablePriorityAndFairness: false,
      maxRequestsInflight: 10,
      maxMutatingRequestsInflight: 5,
      requestLog: false,
      controllers: ["*", "-garbagecollector"],
      leaderElect: false,
      security: DEFAULT_SECURITY,
      authorizationModes: ["RBAC"],
      audit: undefined,
      help: false,
    });
    expect(parseOptions(["--controllers", ""]).controllers).toEqual([]);
  });

  it("reads the TLS and authentication flags, kube-apiserver style", () => {
    expect(
      parseOptions([
        "--cert-dir",
        "/etc/pki",
        "--tls-san",
        "api.example.test",
        "--tls-san",
        "10.0.0.1,api2.example.test",
        "--tls-cert-file",
        "/c.pem",
        "--tls-private-key-file",
        "/k.pem",
        "--client-ca-file",
        "/ca.pem",
        "--token-auth-file",
        "/t.csv",
        "--anonymous-auth=false",
        "--service-account-issuer",
        "https://issuer.example",
        "--service-account-issuer",
        "https://old.example",
        "--api-audiences",
        "api,vault",
        "--service-account-key-file",
        "/old.pub",
        "--service-account-max-token-expiration",
        "24h",
      ]).security,
    ).toEqual({
      insecureHttp: false,
      certDir: "/etc/pki",
      tlsSans: ["api.example.test", "10.0.0.1", "api2.example.test"],
      tlsCertFile: "/c.pem",
      tlsPrivateKeyFile: "/k.pem",
      clientCaFile: "/ca.pem",
      tokenAuthFile: "/t.csv",
      anonymousAuth: false,
      serviceAccountIssuers: ["https://issuer.example", "https://old.example"],
      apiAudiences: ["api", "vault"],
      serviceAccountKeyFiles: ["/old.pub"],
      serviceAccountMaxTokenExpiration: 86_400_000,
      rotateServiceAccountKey: false,
    });
    expect(parseOptions(["--insecure-http"]).security.insecureHttp).toBe(true);
  });

  it("authorizes with RBAC over HTTPS and lets --insecure-http allow everything, unless --authorization-mode says otherwise", () => {
    expect(parseOptions(["--insecure-http"]).authorizationModes).toEqual(["AlwaysAllow"]);
    expect(parseOptions(["--insecure-http", "--authorization-mode", "RBAC"]).authorizationModes).toEqual(["RBAC"]);
    expect(parseOptions(["--authorization-mode", "RBAC,AlwaysDeny"]).authorizationModes).toEqual(["RBAC", "AlwaysDeny"]);
    expect(() => parseOptions(["--authorization-mode", "Node,RBAC"])).toThrow(
      '--authorization-mode: "Node" is not one of RBAC, AlwaysAllow, AlwaysDeny',
    );
    expect(() => parseOptions(["--authorization-mode", "RBAC,RBAC"])).toThrow("names a mode twice");
  });

  it("reads the audit flags, auditing only with both a policy and a log path", () => {
    expect(
      parseOptions([
        "--audit-policy-file",
        "/p.yaml",
        "--audit-log-path",
        "/var/log/audit.log",
        "--audit-log-maxsize",
        "10",
        "--audit-log-maxbackup",
        "3",
        "--audit-log-maxage",
        "7",
      ]).audit,
    ).toEqual({
      policyFile: "/p.yaml",
      logPath: "/var/log/audit.log",
      maxSizeMB: 10,
      maxBackups: 3,
      maxAgeDays: 7,
    });
    expect(parseOptions(["--audit-policy-file", "/p.yaml"]).audit).toBeUndefined();
    expect(parseOptions(["--audit-log-path", "-"]).audit).toBeUndefined();
    expect(() => parseOptions(["--audit-log-maxsize", "1.5"])).toThrow("--audit-log-maxsize must be a non-negative integer");
  });

  it("rejects TLS and token flags that cannot work, naming the flag and the rule", () => {
    expect(() => parseOptions(["--tls-cert-file", "/c.pem"])).toThrow("--tls-cert-file and --tls-private-key-file go together");
    expect(() => parseOptions(["--service-account-issuer", "http://plain:80"])).toThrow(
      "--service-account-issuer \"http://plain:80\" contained a ':' but was not a valid https URL",
    );
    expect(() => parseOptions(["--service-account-max-token-expiration", "10m"])).toThrow(
      "--service-account-max-token-expiration must be at least 1h0m0s",
    );
    expect(() => parseOptions(["--anonymous-auth", "maybe"])).toThrow("--anonymous-auth must be true or false");
    expect(() => parseOptions(["--rotate-service-account-key", "--service-account-signing-key-file", "/k"])).toThrow(
      /--rotate-service-account-key/,
    );
  });

  it("rejects bad ports and storage specs", () => {
    expect(() => parseOptions(["--port", "70000"])).toThrow(UsageError);
    expect(() => parseOptions(["--port", "x"])).toThrow(/--port/);
    expect(() => parseOptions(["--storage", "sqlite:"])).toThrow(/--storage/);
    expect(() => parseOptions(["--nope"])).toThrow();
    expect(() => parseOptions(["--leader-elect", "maybe"])).toThrow('--leader-elect must be true or false, got "maybe"');
    expect(() => parseOptions(["--controllers", "*,-garbagecolector"])).toThrow(
      '--controllers: "garbagecolector" is not in the list of known controllers',
    );
    expect(() => parseOptions(["--enable-priority-and-fairness=no"])).toThrow(/--enable-priority-and-fairness must be true or false/);
    expect(() => parseOptions(["--max-requests-inflight", "1.5"])).toThrow(/--max-requests-inflight must be a non-negative integer/);
  });

  it("reads etcd endpoints and kube-apiserver's --etcd-* settings", () => {
    expect(parseOptions(["--storage", "etcd:http://127.0.0.1:2379,http://[::1]:22379"]).storage).toEqual({
      kind: "etcd",
      endpoints: ["http://127.0.0.1:2379", "http://[::1]:22379"],
      prefix: "/registry",
    });
    expect(
      parseOptions([
        "--storage",
        "etcd:https://127.0.0.1:2379",
        "--etcd-prefix",
        "/kubekit",
        "--etcd-cafile",
        "ca.pem",
        "--etcd-certfile",
        "client.pem",
        "--etcd-keyfile",
        "client-key.pem",
      ]).storage,
    ).toEqual({
      kind: "etcd",
      endpoints: ["https://127.0.0.1:2379"],
      prefix: "/kubekit",
      caFile: "ca.pem",
      certFile: "client.pem",
      keyFile: "client-key.pem",
    });
  });

  it("rejects etcd settings that cannot work, naming the flag and the rule", () => {
    expect(() => parseOptions(["--storage", "etcd://x"])).toThrow(
      '--storage etcd: "//x" is not an etcd client URL (http://host:port or https://host:port)',
    );
    expect(() => parseOptions(["--storage", "etcd:http://127.0.0.1"])).toThrow(
      '--storage etcd: "http://127.0.0.1" is not an etcd client URL',
    );
    expect(() => parseOptions(["--storage", "etcd:https://127.0.0.1:2379"])).toThrow(
      "--storage etcd: https://127.0.0.1:2379 is https, which needs --etcd-cafile",
    );
    expect(() => parseOptions(["--storage", "etcd:http://127.0.0.1:2379", "--etcd-prefix", "registry"])).toThrow(
      '--etcd-prefix must start with "/" and not end with it, got "registry"',
    );
    expect(() => parseOptions(["--storage", "etcd:http://127.0.0.1:2379", "--etcd-certfile", "c.pem"])).toThrow(
      "--etcd-certfile and --etcd-keyfile go together",
    );
    expect(() => parseOptions(["--storage", "postgres://x"])).toThrow(
      '--storage must be "memory", "sqlite:<path>" or "etcd:<url>[,<url>...]", got "postgres://x"',
    );
  });

  it("reads --compaction-interval as a Go duration, 0 turning compaction off", () => {
    expect(parseOptions(["--compaction-interval", "0"]).compactionInterval).toBe(0);
    expect(parseOptions(["--compaction-interval", "30s"]).compactionInterval).toBe(30_000);
    expect(parseOptions(["--compaction-interval", "1.5h"]).compactionInterval).toBe(5_400_000);
    expect(parseOptions(["--compaction-interval", "250ms"]).compactionInterval).toBe(250);
    expect(() => parseOptions(["--compaction-interval", "5"])).toThrow(/--compaction-interval must be a duration/);
    expect(() => parseOptions(["--compaction-interval", "5 m"])).toThrow(UsageError);
    expect(() => parseOptions(["--compaction-interval=-1s"])).toThrow(UsageError);
  });
});
