import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Kubectl } from "../../../../test/harness/kubectl.js";
import { killAllChildren } from "../../../../test/harness/run.js";
import { startInProcess, type TestServer } from "../../../../test/harness/server.js";
import { findKubectl132 } from "../../../../test/harness/tools.js";

/**
 * ValidatingAdmissionPolicy end to end against an in-process server: policies and bindings
 * written with kubectl 1.32 and plain HTTP, then requests denied or admitted as kube-apiserver
 * does (assertions after upstream's e2e `validatingadmissionpolicy.go` and the integration tests
 * in `test/integration/apiserver/cel`).
 */

let server: TestServer;
let kubectl: Kubectl;

beforeAll(async () => {
  const binary = findKubectl132();
  server = await startInProcess();
  kubectl = new Kubectl(binary, server);
}, 60_000);

afterAll(async () => {
  killAllChildren();
  await server?.close();
});

const VAP = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies";
const BINDINGS = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings";

async function request(
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: Record<string, unknown>; warnings: string | null }> {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: { "content-type": "application/json", accept: "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown>, warnings: response.headers.get("warning") };
}

async function created(path: string, body: unknown): Promise<Record<string, unknown>> {
  const response = await request("POST", path, body);
  if (response.status !== 201) throw new Error(`POST ${path}: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body;
}

function configMap(name: string, data: Record<string, string>, labels?: Record<string, string>) {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name, ...(labels ? { labels } : {}) }, data };
}

function policy(name: string, spec: Record<string, unknown>) {
  return { apiVersion: "admissionregistration.k8s.io/v1", kind: "ValidatingAdmissionPolicy", metadata: { name }, spec };
}

function binding(name: string, spec: Record<string, unknown>) {
  return { apiVersion: "admissionregistration.k8s.io/v1", kind: "ValidatingAdmissionPolicyBinding", metadata: { name }, spec };
}

const configMapRules = (namespace: string) => ({
  resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["configmaps"] }],
  namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": namespace } },
});

async function namespace(name: string): Promise<void> {
  await created("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name } });
}

describe("ValidatingAdmissionPolicy", { timeout: 60_000 }, () => {
  it("kubectl applies a policy with a ConfigMap param and a denied create prints upstream's message", async () => {
    await kubectl.ok(["create", "namespace", "vap-kubectl"]);
    await kubectl.ok(["create", "configmap", "limits", "-n", "vap-kubectl", "--from-literal=maxKeys=2"]);
    const manifest = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: max-keys
spec:
  failurePolicy: Fail
  paramKind:
    apiVersion: v1
    kind: ConfigMap
  matchConstraints:
    resourceRules:
    - apiGroups: [""]
      apiVersions: ["v1"]
      operations: ["CREATE", "UPDATE"]
      resources: ["configmaps"]
  validations:
  - expression: "!has(object.data) || size(object.data) <= int(params.data.maxKeys)"
    messageExpression: "'too many keys: ' + string(size(object.data)) + ' > ' + params.data.maxKeys"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: max-keys-binding
spec:
  policyName: max-keys
  validationActions: [Deny]
  paramRef:
    name: limits
    namespace: vap-kubectl
    parameterNotFoundAction: Deny
  matchResources:
    namespaceSelector:
      matchLabels:
        kubernetes.io/metadata.name: vap-kubectl
`;
    const applied = await kubectl.ok(["apply", "-f", "-"], { input: manifest });
    expect(applied).toContain("validatingadmissionpolicy.admissionregistration.k8s.io/max-keys created");
    expect(applied).toContain("validatingadmissionpolicybinding.admissionregistration.k8s.io/max-keys-binding created");

    await kubectl.ok(["create", "configmap", "small", "-n", "vap-kubectl", "--from-literal=a=1", "--from-literal=b=2"]);
    const denied = await kubectl.run([
      "create",
      "configmap",
      "big",
      "-n",
      "vap-kubectl",
      "--from-literal=a=1",
      "--from-literal=b=2",
      "--from-literal=c=3",
    ]);
    expect(denied.code).toBe(1);
    expect(denied.stderr).toContain(
      `configmaps "big" is forbidden: ValidatingAdmissionPolicy 'max-keys' with binding 'max-keys-binding' denied request: too many keys: 3 > 2`,
    );
    // Other namespaces are outside the binding's namespaceSelector.
    await kubectl.ok(["create", "configmap", "big", "-n", "default", "--from-literal=a=1", "--from-literal=b=2", "--from-literal=c=3"]);

    const table = await kubectl.ok(["get", "validatingadmissionpolicies"]);
    expect(table).toMatch(/NAME\s+VALIDATIONS\s+PARAMKIND\s+AGE/);
    expect(table).toMatch(/max-keys\s+1\s+v1\/ConfigMap/);
    await kubectl.ok(["delete", "validatingadmissionpolicybinding", "max-keys-binding"]);
    await kubectl.ok(["create", "configmap", "big", "-n", "vap-kubectl", "--from-literal=a=1", "--from-literal=b=2", "--from-literal=c=3"]);
  });

  it("denies with the validation's reason and code, message and default message", async () => {
    await namespace("vap-reasons");
    await created(
      VAP,
      policy("reasons", {
        matchConstraints: configMapRules("vap-reasons"),
        validations: [
          { expression: "object.metadata.name != 'forbidden'", reason: "Forbidden", message: "this name is reserved" },
          { expression: "object.metadata.name.size() < 20" },
        ],
      }),
    );
    await created(BINDINGS, binding("reasons", { policyName: "reasons", validationActions: ["Deny"] }));

    const forbidden = await request("POST", "/api/v1/namespaces/vap-reasons/configmaps", configMap("forbidden", {}));
    expect(forbidden.status).toBe(403);
    expect(forbidden.body).toMatchObject({
      kind: "Status",
      status: "Failure",
      reason: "Forbidden",
      code: 403,
      message: `configmaps "forbidden" is forbidden: ValidatingAdmissionPolicy 'reasons' with binding 'reasons' denied request: this name is reserved`,
      details: {
        name: "forbidden",
        kind: "configmaps",
        causes: [{ message: "ValidatingAdmissionPolicy 'reasons' with binding 'reasons' denied request: this name is reserved" }],
      },
    });

    const long = await request("POST", "/api/v1/namespaces/vap-reasons/configmaps", configMap("a-name-that-is-too-long", {}));
    expect(long.status).toBe(422);
    expect(long.body).toMatchObject({
      reason: "Invalid",
      message: `configmaps "a-name-that-is-too-long" is forbidden: ValidatingAdmissionPolicy 'reasons' with binding 'reasons' denied request: failed expression: object.metadata.name.size() < 20`,
    });
    expect((await request("POST", "/api/v1/namespaces/vap-reasons/configmaps", configMap("fine", {}))).status).toBe(201);
  });

  it("sees an unauthenticated request's user as system:anonymous on every verb, deletes included", async () => {
    await namespace("vap-user");
    await created(
      VAP,
      policy("who", {
        matchConstraints: {
          resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE", "DELETE"], resources: ["configmaps"] }],
          namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "vap-user" } },
        },
        validations: [
          {
            expression: "request.operation == 'CREATE' && object.metadata.name != 'refused'",
            messageExpression: "request.operation + ' by ' + request.userInfo.username + ' in ' + request.userInfo.groups[0]",
          },
        ],
      }),
    );
    await created(BINDINGS, binding("who", { policyName: "who", validationActions: ["Deny"] }));
    const refused = await request("POST", "/api/v1/namespaces/vap-user/configmaps", configMap("refused", {}));
    expect(refused.body.message).toContain("denied request: CREATE by system:anonymous in system:unauthenticated");
    expect((await request("POST", "/api/v1/namespaces/vap-user/configmaps", configMap("kept", {}))).status).toBe(201);
    const deletion = await request("DELETE", "/api/v1/namespaces/vap-user/configmaps/kept");
    expect(deletion.body.message).toContain("denied request: DELETE by system:anonymous in system:unauthenticated");
  });

  it("evaluates variables, matchConditions, object selectors, exclusions and oldObject on update", async () => {
    await namespace("vap-compose");
    await created(
      VAP,
      policy("compose", {
        matchConstraints: {
          ...configMapRules("vap-compose"),
          objectSelector: { matchExpressions: [{ key: "checked", operator: "Exists" }] },
          excludeResourceRules: [
            { apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["configmaps"], resourceNames: ["exempt"] },
          ],
        },
        matchConditions: [{ name: "not-system", expression: "!object.metadata.name.startsWith('system-')" }],
        variables: [
          { name: "keys", expression: "has(object.data) ? object.data.size() : 0" },
          { name: "tooMany", expression: "variables.keys > 1" },
        ],
        validations: [
          { expression: "!variables.tooMany", messageExpression: "'has ' + string(variables.keys) + ' keys'" },
          { expression: "oldObject == null || object.data.mode == oldObject.data.mode", message: "mode is immutable" },
        ],
      }),
    );
    await created(BINDINGS, binding("compose", { policyName: "compose", validationActions: ["Deny"] }));
    const path = "/api/v1/namespaces/vap-compose/configmaps";
    const two = { mode: "a", b: "2" };
    expect((await request("POST", path, configMap("unlabelled", two))).status).toBe(201);
    expect((await request("POST", path, configMap("system-x", two, { checked: "y" }))).status).toBe(201);
    expect((await request("POST", path, configMap("exempt", two, { checked: "y" }))).status).toBe(201);
    const denied = await request("POST", path, configMap("checked", two, { checked: "y" }));
    expect(denied.body["message"]).toBe(
      `configmaps "checked" is forbidden: ValidatingAdmissionPolicy 'compose' with binding 'compose' denied request: has 2 keys`,
    );

    expect((await request("POST", path, configMap("one", { mode: "a" }, { checked: "y" }))).status).toBe(201);
    const update = await request("PUT", `${path}/one`, configMap("one", { mode: "b" }, { checked: "y" }));
    expect(update.status).toBe(422);
    expect(update.body["message"]).toContain("denied request: mode is immutable");
  });

  it("applies failurePolicy to evaluation errors and parameterNotFoundAction to missing params", async () => {
    await namespace("vap-failure");
    const spec = (failurePolicy: string) => ({
      failurePolicy,
      matchConstraints: configMapRules("vap-failure"),
      validations: [{ expression: "object.data.required == 'yes'" }],
    });
    await created(VAP, policy("fail-closed", spec("Fail")));
    await created(BINDINGS, binding("fail-closed", { policyName: "fail-closed", validationActions: ["Deny"] }));
    const path = "/api/v1/namespaces/vap-failure/configmaps";
    const failed = await request("POST", path, configMap("no-key", { other: "x" }));
    expect(failed.status).toBe(422);
    expect(failed.body["message"]).toBe(
      `configmaps "no-key" is forbidden: ValidatingAdmissionPolicy 'fail-closed' with binding 'fail-closed' denied request: expression 'object.data.required == 'yes'' resulted in error: no such key: required`,
    );
    await request("DELETE", `${BINDINGS}/fail-closed`);

    await created(VAP, policy("fail-open", spec("Ignore")));
    await created(BINDINGS, binding("fail-open", { policyName: "fail-open", validationActions: ["Deny"] }));
    expect((await request("POST", path, configMap("no-key", { other: "x" }))).status).toBe(201);
    expect((await request("POST", path, configMap("wrong", { required: "no" }))).status).toBe(422);
    await request("DELETE", `${BINDINGS}/fail-open`);

    await created(
      VAP,
      policy("needs-params", {
        paramKind: { apiVersion: "v1", kind: "ConfigMap" },
        matchConstraints: configMapRules("vap-failure"),
        validations: [{ expression: "params.data.allowed == 'true'" }],
      }),
    );
    const paramBinding = (action: string) =>
      binding(`needs-params-${action.toLowerCase()}`, {
        policyName: "needs-params",
        validationActions: ["Deny"],
        paramRef: { name: "absent", parameterNotFoundAction: action },
      });
    await created(BINDINGS, paramBinding("Allow"));
    expect((await request("POST", path, configMap("allowed-without-params", {}))).status).toBe(201);
    await created(BINDINGS, paramBinding("Deny"));
    const noParams = await request("POST", path, configMap("denied-without-params", {}));
    expect(noParams.body["message"]).toBe(
      "configmaps \"denied-without-params\" is forbidden: ValidatingAdmissionPolicy 'needs-params' with binding 'needs-params-deny' denied request: failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction",
    );
  });

  it("selects params by label and validates against each", async () => {
    await namespace("vap-selector");
    const path = "/api/v1/namespaces/vap-selector/configmaps";
    await created(path, configMap("forbid-a", { name: "a" }, { rule: "name" }));
    await created(path, configMap("forbid-b", { name: "b" }, { rule: "name" }));
    await created(
      VAP,
      policy("names", {
        paramKind: { apiVersion: "v1", kind: "ConfigMap" },
        matchConstraints: configMapRules("vap-selector"),
        validations: [
          { expression: "object.metadata.name != params.data.name", messageExpression: "'name ' + params.data.name + ' is taken'" },
        ],
      }),
    );
    await created(
      BINDINGS,
      binding("names", {
        policyName: "names",
        validationActions: ["Deny"],
        paramRef: { selector: { matchLabels: { rule: "name" } }, parameterNotFoundAction: "Allow" },
      }),
    );
    expect((await request("POST", path, configMap("b", {}))).body["message"]).toContain("denied request: name b is taken");
    expect((await request("POST", path, configMap("c", {}))).status).toBe(201);
  });

  it("warns instead of denying under validationActions Warn, as a Warning header kubectl prints", async () => {
    await kubectl.ok(["create", "namespace", "vap-warn"]);
    await created(
      VAP,
      policy("warn-keys", {
        matchConstraints: configMapRules("vap-warn"),
        validations: [{ expression: "!has(object.data.legacy)", message: "the legacy key is deprecated" }],
      }),
    );
    await created(BINDINGS, binding("warn-keys", { policyName: "warn-keys", validationActions: ["Warn", "Audit"] }));
    const response = await request("POST", "/api/v1/namespaces/vap-warn/configmaps", configMap("old", { legacy: "1" }));
    expect(response.status).toBe(201);
    expect(response.warnings).toBe(
      `299 - "Validation failed for ValidatingAdmissionPolicy 'warn-keys' with binding 'warn-keys': the legacy key is deprecated"`,
    );
    const clean = await request("POST", "/api/v1/namespaces/vap-warn/configmaps", configMap("new", { modern: "1" }));
    expect(clean.warnings).toBeNull();
    const created_ = await kubectl.run(["create", "configmap", "older", "-n", "vap-warn", "--from-literal=legacy=1"]);
    expect(created_.code).toBe(0);
    expect(created_.stderr).toContain(
      "Warning: Validation failed for ValidatingAdmissionPolicy 'warn-keys' with binding 'warn-keys': the legacy key is deprecated",
    );
  });

  it("refuses policies and bindings that cannot work, naming the field and the rule", async () => {
    const bad = await request(
      "POST",
      VAP,
      policy("bad", {
        matchConstraints: configMapRules("x"),
        validations: [{ expression: "object.metadata.name ==" }, { expression: "foo == 1", reason: "Teapot" }],
        failurePolicy: "Sometimes",
      }),
    );
    expect(bad.status).toBe(422);
    const causes = (bad.body["details"] as { causes: Array<{ field: string; reason: string; message: string }> }).causes;
    expect(causes.map((c) => [c.field, c.reason])).toEqual([
      ["spec.failurePolicy", "FieldValueNotSupported"],
      ["spec.validations[0].expression", "FieldValueInvalid"],
      ["spec.validations[1].expression", "FieldValueInvalid"],
      ["spec.validations[1].reason", "FieldValueNotSupported"],
    ]);
    expect(causes[2]?.message).toContain("undeclared reference to 'foo' (in container '')");
    expect(bad.body["message"]).toMatch(
      /^ValidatingAdmissionPolicy.admissionregistration.k8s.io "bad" is invalid: \[spec.failurePolicy: Unsupported value: "Sometimes": supported values: "Fail", "Ignore"/,
    );

    const badBinding = await request("POST", BINDINGS, binding("bad", { validationActions: ["Deny", "Warn", "Deny"] }));
    expect(badBinding.status).toBe(422);
    expect((badBinding.body["details"] as { causes: Array<{ field: string }> }).causes.map((c) => c.field)).toEqual([
      "spec.policyName",
      "spec.validationActions[2]",
      "spec.validationActions",
    ]);
  });

  it("never applies to admission configuration, so a policy that denies everything can be removed", async () => {
    await created(
      VAP,
      policy("deny-all", {
        matchConstraints: { resourceRules: [{ apiGroups: ["*"], apiVersions: ["*"], operations: ["*"], resources: ["*"] }] },
        validations: [{ expression: "false", message: "nothing passes" }],
      }),
    );
    await created(BINDINGS, binding("deny-all", { policyName: "deny-all", validationActions: ["Deny"] }));
    const blocked = await request("POST", "/api/v1/namespaces/default/configmaps", configMap("blocked", {}));
    expect(blocked.body["message"]).toContain("denied request: nothing passes");
    expect((await request("DELETE", `${BINDINGS}/deny-all`)).status).toBe(200);
    expect((await request("DELETE", `${VAP}/deny-all`)).status).toBe(200);
    expect((await request("POST", "/api/v1/namespaces/default/configmaps", configMap("blocked", {}))).status).toBe(201);
  });

  it("defaults policies and bindings as upstream does", async () => {
    const stored = await created(
      VAP,
      policy("defaults", {
        matchConstraints: { resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["secrets"] }] },
        validations: [{ expression: "true" }],
      }),
    );
    expect(stored["spec"]).toMatchObject({
      failurePolicy: "Fail",
      matchConstraints: { matchPolicy: "Equivalent", namespaceSelector: {}, objectSelector: {}, resourceRules: [{ scope: "*" }] },
    });
    expect((stored["metadata"] as { generation?: number }).generation).toBe(1);
  });
});
