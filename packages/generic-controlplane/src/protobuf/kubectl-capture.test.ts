import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findKubectl132 } from "../../test/harness/tools.js";
import { decodeProtobuf } from "./codec.js";

/**
 * What kubectl 1.32 actually sends. The fixtures are request bodies captured from
 * `kubectl create …` / `kubectl auth can-i` against a recording server; when kubectl is installed
 * the same capture also runs live.
 */
const CAPTURED: Record<string, string> = {
  configmap: "6b3873000a0f0a0276311209436f6e6669674d6170121b0a110a017812001a0022002a0032003800420012060a01611201621a002200",
  namespace: "6b3873000a0f0a02763112094e616d657370616365121c0a140a047465616d12001a0022002a0032003800420012001a020a001a002200",
  secret: "6b3873000a0c0a027631120653656372657412240a110a017312001a0022002a00320038004200120d0a0870617373776f72641201701a001a002200",
  serviceaccount: "6b3873000a140a027631120e536572766963654163636f756e7412140a120a02736112001a0022002a003200380042001a002200",
  role: "6b3873000a240a1c726261632e617574686f72697a6174696f6e2e6b38732e696f2f76311204526f6c6512280a110a017212001a0022002a0032003800420012130a0367657412001a0a636f6e6669676d6170731a002200",
  rolebinding:
    "6b3873000a2b0a1c726261632e617574686f72697a6174696f6e2e6b38732e696f2f7631120b526f6c6542696e64696e6712660a120a02726212001a0022002a00320038004200122a0a04557365721219726261632e617574686f72697a6174696f6e2e6b38732e696f1a05616c69636522001a240a19726261632e617574686f72697a6174696f6e2e6b38732e696f1204526f6c651a01721a002200",
  clusterrole:
    "6b3873000a2b0a1c726261632e617574686f72697a6174696f6e2e6b38732e696f2f7631120b436c7573746572526f6c6512260a120a02637212001a0022002a0032003800420012100a0367657412001a07736563726574731a002200",
  clusterrolebinding:
    "6b3873000a320a1c726261632e617574686f72697a6174696f6e2e6b38732e696f2f76311212436c7573746572526f6c6542696e64696e67126f0a130a0363726212001a0022002a00320038004200122a0a0547726f75701219726261632e617574686f72697a6174696f6e2e6b38732e696f1a046465767322001a2c0a19726261632e617574686f72697a6174696f6e2e6b38732e696f120b436c7573746572526f6c651a0263721a002200",
  selfsubjectaccessreview:
    "6b3873000a320a17617574686f72697a6174696f6e2e6b38732e696f2f7631121753656c665375626a65637441636365737352657669657712420a100a0012001a0022002a0032003800420012240a220a0764656661756c7412036765741a0022002a0a636f6e6669676d61707332003a001a08080012001a0020001a002200",
  tokenrequest:
    "6b3873000a280a1861757468656e7469636174696f6e2e6b38732e696f2f7631120c546f6b656e5265717565737412220a100a0012001a0022002a0032003800420012080a0361706920901c1a040a0012001a002200",
  selfsubjectreview:
    "6b3873000a2d0a1861757468656e7469636174696f6e2e6b38732e696f2f7631121153656c665375626a656374526576696577121a0a100a0012001a0022002a0032003800420012060a040a0012001a002200",
  selfsubjectrulesreview:
    "6b3873000a310a17617574686f72697a6174696f6e2e6b38732e696f2f7631121653656c665375626a65637452756c657352657669657712230a100a0012001a0022002a0032003800420012090a0764656661756c741a04180022001a002200",
};

const EXPECTED: Record<string, unknown> = {
  configmap: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "x" }, data: { a: "b" } },
  namespace: { apiVersion: "v1", kind: "Namespace", metadata: { name: "team" } },
  secret: { apiVersion: "v1", kind: "Secret", metadata: { name: "s" }, data: { password: "cA==" } },
  serviceaccount: { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "sa" } },
  role: {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "Role",
    metadata: { name: "r" },
    rules: [{ verbs: ["get"], apiGroups: [""], resources: ["configmaps"] }],
  },
  rolebinding: {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "RoleBinding",
    metadata: { name: "rb" },
    subjects: [{ kind: "User", apiGroup: "rbac.authorization.k8s.io", name: "alice" }],
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "r" },
  },
  clusterrole: {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "ClusterRole",
    metadata: { name: "cr" },
    rules: [{ verbs: ["get"], apiGroups: [""], resources: ["secrets"] }],
  },
  clusterrolebinding: {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "ClusterRoleBinding",
    metadata: { name: "crb" },
    subjects: [{ kind: "Group", apiGroup: "rbac.authorization.k8s.io", name: "devs" }],
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "cr" },
  },
  selfsubjectaccessreview: {
    apiVersion: "authorization.k8s.io/v1",
    kind: "SelfSubjectAccessReview",
    metadata: {},
    spec: { resourceAttributes: { namespace: "default", verb: "get", resource: "configmaps" } },
    status: { allowed: false },
  },
  tokenrequest: {
    apiVersion: "authentication.k8s.io/v1",
    kind: "TokenRequest",
    metadata: {},
    spec: { audiences: ["api"], expirationSeconds: 3600 },
    status: { token: "" },
  },
  selfsubjectreview: { apiVersion: "authentication.k8s.io/v1", kind: "SelfSubjectReview", metadata: {} },
  selfsubjectrulesreview: {
    apiVersion: "authorization.k8s.io/v1",
    kind: "SelfSubjectRulesReview",
    metadata: {},
    spec: { namespace: "default" },
    status: { incomplete: false },
  },
};

describe("bodies kubectl 1.32 sent", () => {
  it.each(Object.keys(EXPECTED))("%s decodes to its JSON form", (name) => {
    expect(decodeProtobuf(Buffer.from(CAPTURED[name] ?? "", "hex"))).toEqual(EXPECTED[name]);
  });
});

const run = promisify(execFile);

const resourceList = (groupVersion: string, resources: Array<[string, string, boolean]>) => ({
  kind: "APIResourceList",
  apiVersion: "v1",
  groupVersion,
  resources: resources.map(([name, kind, namespaced]) => ({ name, singularName: "", namespaced, kind, verbs: ["create", "get", "list"] })),
});

const group = (name: string) => ({
  name,
  versions: [{ groupVersion: `${name}/v1`, version: "v1" }],
  preferredVersion: { groupVersion: `${name}/v1`, version: "v1" },
});

/** Just enough legacy discovery for kubectl to map the resources, and a recorder for POST bodies. */
const DISCOVERY: Record<string, unknown> = {
  "/api": { kind: "APIVersions", versions: ["v1"], serverAddressByClientCIDRs: [{ clientCIDR: "0.0.0.0/0", serverAddress: "127.0.0.1" }] },
  "/apis": {
    kind: "APIGroupList",
    apiVersion: "v1",
    groups: [group("rbac.authorization.k8s.io"), group("authorization.k8s.io"), group("authentication.k8s.io")],
  },
  "/api/v1": resourceList("v1", [
    ["configmaps", "ConfigMap", true],
    ["namespaces", "Namespace", false],
    ["secrets", "Secret", true],
    ["serviceaccounts", "ServiceAccount", true],
    ["serviceaccounts/token", "TokenRequest", true],
  ]),
  "/apis/rbac.authorization.k8s.io/v1": resourceList("rbac.authorization.k8s.io/v1", [
    ["roles", "Role", true],
    ["rolebindings", "RoleBinding", true],
  ]),
  "/apis/authorization.k8s.io/v1": resourceList("authorization.k8s.io/v1", [
    ["selfsubjectaccessreviews", "SelfSubjectAccessReview", false],
    ["selfsubjectrulesreviews", "SelfSubjectRulesReview", false],
  ]),
  "/apis/authentication.k8s.io/v1": resourceList("authentication.k8s.io/v1", [["selfsubjectreviews", "SelfSubjectReview", false]]),
};

/** What the recording server fills in for the review and token kinds, so kubectl finishes normally. */
const ANSWERS: Record<string, Record<string, unknown>> = {
  SelfSubjectAccessReview: { status: { allowed: true } },
  SelfSubjectRulesReview: {
    status: { resourceRules: [{ verbs: ["get"], apiGroups: [""], resources: ["configmaps"] }], nonResourceRules: [], incomplete: false },
  },
  SelfSubjectReview: { status: { userInfo: { username: "alice", groups: ["devs"] } } },
  TokenRequest: { status: { token: "token-value", expirationTimestamp: "2030-01-01T00:00:00Z" } },
};

describe("live kubectl 1.32", () => {
  // A missing or wrong kubectl fails here (tools.ts says where it looked); it is never a skip.
  let kubectlBinary = "";
  const posts: Array<{ contentType: string | undefined; body: Buffer }> = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const path = new URL(req.url ?? "/", "http://127.0.0.1").pathname;
      const reply = (code: number, body: unknown) => {
        res.writeHead(code, { "Content-Type": "application/json" });
        res.end(JSON.stringify(body));
      };
      if (req.method === "POST") {
        const body = Buffer.concat(chunks);
        posts.push({ contentType: req.headers["content-type"], body });
        // Echo the decoded object, as a server would after storing it.
        const object = decodeProtobuf(body);
        return reply(201, { ...object, ...ANSWERS[object.kind ?? ""] });
      }
      const document = DISCOVERY[path];
      if (document !== undefined) return reply(200, document);
      reply(404, { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", reason: "NotFound", code: 404 });
    });
  });
  let dir = "";
  let kubeconfig = "";

  beforeAll(async () => {
    kubectlBinary = findKubectl132();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    dir = await mkdtemp(join(tmpdir(), "kubekit-kubectl-"));
    kubeconfig = join(dir, "config");
    await writeFile(
      kubeconfig,
      [
        "apiVersion: v1",
        "kind: Config",
        "clusters: [{name: c, cluster: {server: 'http://127.0.0.1:" + String(port) + "'}}]",
        "contexts: [{name: c, context: {cluster: c, user: u, namespace: default}}]",
        "current-context: c",
        "users: [{name: u, user: {}}]",
        "",
      ].join("\n"),
    );
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    if (dir !== "") await rm(dir, { recursive: true, force: true });
  });

  const kubectl = (...args: string[]) => run(kubectlBinary, [...args, "--kubeconfig", kubeconfig], { timeout: 30_000 });

  it.each([
    ["configmap", ["create", "configmap", "x", "--from-literal=a=b"]],
    ["namespace", ["create", "namespace", "team"]],
    ["secret", ["create", "secret", "generic", "s", "--from-literal=password=p"]],
    ["serviceaccount", ["create", "serviceaccount", "sa"]],
    ["role", ["create", "role", "r", "--verb=get", "--resource=configmaps"]],
    ["rolebinding", ["create", "rolebinding", "rb", "--role=r", "--user=alice"]],
  ])(
    "kubectl create %s sends protobuf this codec decodes",
    async (name, args) => {
      const before = posts.length;
      const { stdout } = await kubectl(...args);
      expect(stdout).toMatch(/created/);
      const post = posts[before];
      expect(post?.contentType).toBe("application/vnd.kubernetes.protobuf");
      expect(decodeProtobuf(post?.body ?? Buffer.alloc(0))).toEqual(EXPECTED[name]);
    },
    40_000,
  );

  it("kubectl auth can-i sends a SelfSubjectAccessReview and reads the answer", async () => {
    const before = posts.length;
    const { stdout } = await kubectl("auth", "can-i", "get", "configmaps");
    expect(stdout.trim()).toBe("yes");
    expect(decodeProtobuf(posts[before]?.body ?? Buffer.alloc(0))).toEqual(EXPECTED["selfsubjectaccessreview"]);
  }, 40_000);

  it.each([
    ["tokenrequest", ["create", "token", "sa", "--audience=api", "--duration=1h"], /^token-value$/],
    ["selfsubjectreview", ["auth", "whoami"], /alice/],
    ["selfsubjectrulesreview", ["auth", "can-i", "--list"], /configmaps/],
  ])(
    "kubectl sends %s as protobuf this codec decodes",
    async (name, args, output) => {
      const before = posts.length;
      const { stdout } = await kubectl(...args);
      expect(stdout.trim()).toMatch(output);
      expect(posts[before]?.contentType).toBe("application/vnd.kubernetes.protobuf");
      expect(decodeProtobuf(posts[before]?.body ?? Buffer.alloc(0))).toEqual(EXPECTED[name]);
    },
    40_000,
  );
});
