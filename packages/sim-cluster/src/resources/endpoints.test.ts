import { isControlPlaneError, type KubeObject } from "@kubekit/generic-controlplane";
import { createResourceStore, toTable, type ResourceDefinition, type ResourceStore } from "@kubekit/generic-controlplane/registry";
import { createMemoryStorage } from "@kubekit/generic-controlplane/storage";
import { afterEach, describe, expect, it } from "vitest";
import { endpointSlicesResource } from "./endpoint-slices.js";
import { endpointsResource } from "./endpoints.js";

const storages: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(storages.splice(0).map((s) => s.close()));
});

function storeFor(definition: ResourceDefinition): ResourceStore {
  const storage = createMemoryStorage({ compactInterval: 0 });
  storages.push(storage);
  return createResourceStore(definition, storage);
}

async function refusal(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (isControlPlaneError(error)) return `${error.code}: ${error.message}`;
    throw error;
  }
  throw new Error("expected the write to be refused");
}

describe("endpoints", () => {
  it("refuses subsets without addresses, bad IPs and ports with upstream's messages", async () => {
    const endpoints = storeFor(endpointsResource());
    const message = await refusal(
      endpoints.create("default", {
        metadata: { name: "web" },
        subsets: [
          { ports: [{ port: 80 }] },
          {
            addresses: [{ ip: "10.0.0.300" }, { ip: "127.0.0.1" }, { ip: "0.0.0.0" }],
            ports: [
              { name: "a", port: 0 },
              { port: 81, protocol: "ICMP" },
            ],
          },
        ],
      }),
    );
    expect(message).toContain('Invalid: Endpoints "web" is invalid: [');
    expect(message).toContain("subsets[0]: Required value: must specify `addresses` or `notReadyAddresses`");
    expect(message).toContain(
      'subsets[1].addresses[0].ip: Invalid value: "10.0.0.300": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)',
    );
    expect(message).toContain(
      'subsets[1].addresses[1].ip: Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)',
    );
    expect(message).toContain('subsets[1].addresses[2].ip: Invalid value: "0.0.0.0": may not be unspecified (0.0.0.0, ::)');
    expect(message).toContain("subsets[1].ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive");
    expect(message).toContain("subsets[1].ports[1].name: Required value");
    expect(message).toContain('subsets[1].ports[1].protocol: Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP"');
  });

  it("reads addresses as Kubernetes' legacy fields do: leading zeros are decimal, an IPv4-mapped address is IPv4", async () => {
    const endpoints = storeFor(endpointsResource());
    await endpoints.create("default", {
      metadata: { name: "legacy" },
      subsets: [{ addresses: [{ ip: "010.000.000.001" }], ports: [{ port: 80 }] }],
    });
    const message = await refusal(
      endpoints.create("default", {
        metadata: { name: "web" },
        subsets: [{ addresses: [{ ip: "127.000.000.001" }, { ip: "::ffff:169.254.1.1" }, { ip: "0:0::0" }], ports: [{ port: 80 }] }],
      }),
    );
    expect(message).toContain(
      'subsets[0].addresses[0].ip: Invalid value: "127.000.000.001": may not be in the loopback range (127.0.0.0/8, ::1/128)',
    );
    expect(message).toContain(
      'subsets[0].addresses[1].ip: Invalid value: "::ffff:169.254.1.1": may not be in the link-local range (169.254.0.0/16, fe80::/10)',
    );
    expect(message).toContain('subsets[0].addresses[2].ip: Invalid value: "0:0::0": may not be unspecified (0.0.0.0, ::)');
    const slices = storeFor(endpointSlicesResource());
    await slices.create("default", {
      metadata: { name: "legacy-abc" },
      addressType: "IPv4",
      endpoints: [{ addresses: ["010.0.0.2", "::ffff:10.0.0.3"] }],
      ports: [],
    });
  });

  it("accepts loopback addresses when the cluster gives pods loopback IPs, and defaults the protocol", async () => {
    const endpoints = storeFor(endpointsResource({ allowLoopback: true }));
    const created = (await endpoints.create("default", {
      metadata: { name: "web" },
      subsets: [{ addresses: [{ ip: "127.1.0.5" }], ports: [{ port: 80 }] }],
    })) as KubeObject & {
      subsets: Array<{ ports: Array<{ protocol: string }> }>;
    };
    expect(created.subsets[0]!.ports[0]!.protocol).toBe("TCP");
  });

  it("shows kubectl's ENDPOINTS column: three ready ip:port pairs and a count of the rest", () => {
    const definition = endpointsResource();
    const many = {
      metadata: { name: "web" },
      subsets: [
        {
          addresses: ["10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.0.4"].map((ip) => ({ ip })),
          notReadyAddresses: [{ ip: "10.0.0.9" }],
          ports: [{ port: 8080 }],
        },
      ],
    };
    const table = toTable(definition, [
      many,
      { metadata: { name: "none" } },
      { metadata: { name: "unready" }, subsets: [{ notReadyAddresses: [{ ip: "10.0.0.9" }], ports: [{ port: 80 }] }] },
    ]);
    expect(table.columnDefinitions.map((c) => c.name)).toEqual(["Name", "Endpoints", "Age"]);
    expect(table.rows.map((r) => r.cells[1])).toEqual(["10.0.0.1:8080,10.0.0.2:8080,10.0.0.3:8080 + 1 more...", "<none>", ""]);
  });
});

describe("endpointslices", () => {
  const slice = (extra: Record<string, unknown>) => ({
    metadata: { name: "web-abc" },
    addressType: "IPv4",
    endpoints: [],
    ports: [],
    ...extra,
  });

  it("validates address type, addresses and ports with upstream's messages", async () => {
    const slices = storeFor(endpointSlicesResource());
    const message = await refusal(
      slices.create(
        "default",
        slice({
          addressType: "IPv4",
          endpoints: [{ addresses: [] }, { addresses: ["10.0.0.1", "fe80::1", "127.0.0.2"], hostname: "Bad_Host" }],
          ports: [
            { name: "http", port: 80, protocol: "TCP" },
            { name: "http", port: 81, protocol: "ICMP" },
            { name: "Bad", port: 70000 },
          ],
        }),
      ),
    );
    expect(message).toContain('EndpointSlice.discovery.k8s.io "web-abc" is invalid');
    expect(message).toContain("endpoints[0].addresses: Required value: must contain at least 1 address");
    expect(message).toContain('endpoints[1].addresses[1]: Invalid value: "fe80::1": must be a valid IPv4 address');
    expect(message).toContain(
      'endpoints[1].addresses[2]: Invalid value: "127.0.0.2": may not be in the loopback range (127.0.0.0/8, ::1/128)',
    );
    expect(message).toContain('endpoints[1].hostname: Invalid value: "Bad_Host"');
    expect(message).toContain('ports[1].name: Duplicate value: "http"');
    expect(message).toContain('ports[1].protocol: Unsupported value: "ICMP"');
    expect(message).toContain("ports[2].port: Invalid value: 70000: must be between 1 and 65535, inclusive");
    expect(await refusal(slices.create("default", slice({ addressType: "IP" })))).toContain(
      'addressType: Unsupported value: "IP": supported values: "FQDN", "IPv4", "IPv6"',
    );
    expect(await refusal(slices.create("default", slice({ addressType: undefined })))).toContain("addressType: Required value");
    const tooMany = await refusal(
      slices.create(
        "default",
        slice({ endpoints: Array.from({ length: 1001 }, (_, i) => ({ addresses: [`10.0.${i >> 8}.${(i & 255) + 1}`] })) }),
      ),
    );
    expect(tooMany).toContain("endpoints: Too many: 1001: must have at most 1000 items");
  });

  it("defaults port names and protocols, counts generations and keeps the address type", async () => {
    const slices = storeFor(endpointSlicesResource());
    const created = (await slices.create(
      "default",
      slice({ endpoints: [{ addresses: ["10.0.0.1"] }], ports: [{ port: 80 }] }),
    )) as KubeObject & { ports: unknown[] };
    expect(created.ports).toEqual([{ name: "", port: 80, protocol: "TCP" }]);
    expect(created.metadata?.generation).toBe(1);
    const updated = await slices.guaranteedUpdate("default", "web-abc", (s) => ({ ...s, endpoints: [{ addresses: ["10.0.0.2"] }] }));
    expect(updated.metadata?.generation).toBe(2);
    const moved = await refusal(slices.guaranteedUpdate("default", "web-abc", (s) => ({ ...s, addressType: "IPv6", endpoints: [] })));
    expect(moved).toContain('addressType: Invalid value: "IPv6": field is immutable');
  });

  it("shows kubectl's ADDRESSTYPE, PORTS and ENDPOINTS columns", () => {
    const table = toTable(endpointSlicesResource(), [
      slice({
        endpoints: ["10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.0.4", "10.0.0.5"].map((ip) => ({ addresses: [ip] })),
        ports: [
          { name: "http", port: 8080, protocol: "TCP" },
          { name: "dns", protocol: "UDP" },
        ],
      }),
      slice({}),
    ]);
    expect(table.columnDefinitions.map((c) => c.name)).toEqual(["Name", "AddressType", "Ports", "Endpoints", "Age"]);
    expect(table.rows.map((r) => r.cells.slice(1, 4))).toEqual([
      ["IPv4", "8080,dns", "10.0.0.1,10.0.0.2,10.0.0.3 + 2 more..."],
      ["IPv4", "<unset>", "<unset>"],
    ]);
  });
});
