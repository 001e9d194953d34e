import { describe, expect, it } from "vitest";
import { DEFAULT_KUBECONFIG, DEFAULT_PORT, parseOptions, UsageError } from "./options.js";

describe("parseOptions", () => {
  it("defaults to sqlite under .kubekit, port 8080 on loopback, request logs on", () => {
    expect(parseOptions([])).toEqual({
      host: "127.0.0.1",
      port: DEFAULT_PORT,
      storage: { kind: "sqlite", path: ".kubekit/data/state.db" },
      kubeconfig: DEFAULT_KUBECONFIG,
      requestLog: true,
      controllers: ["*"],
      leaderElect: true,
      help: false,
    });
  });

  it("reads every flag", () => {
    expect(
      parseOptions(["--port", "0", "--host", "::1", "--storage", "memory", "--kubeconfig", "/tmp/k", "--quiet", "--controllers=*,-garbagecollector", "--leader-elect=false"]),
    ).toEqual({
      host: "::1",
      port: 0,
      storage: { kind: "memory" },
      kubeconfig: "/tmp/k",
      requestLog: false,
      controllers: ["*", "-garbagecollector"],
      leaderElect: false,
      help: false,
    });
    expect(parseOptions(["--controllers", ""]).controllers).toEqual([]);
  });

  it("rejects bad ports and storage specs", () => {
    expect(() => parseOptions(["--port", "70000"])).toThrow(UsageError);
    expect(() => parseOptions(["--port", "x"])).toThrow(/--port/);
    expect(() => parseOptions(["--storage", "sqlite:"])).toThrow(/--storage/);
    expect(() => parseOptions(["--nope"])).toThrow();
    expect(() => parseOptions(["--leader-elect", "maybe"])).toThrow('--leader-elect must be true or false, got "maybe"');
    expect(() => parseOptions(["--controllers", "*,-garbagecolector"])).toThrow('--controllers: "garbagecolector" is not in the list of known controllers');
  });
});
