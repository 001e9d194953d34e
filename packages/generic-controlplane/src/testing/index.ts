/**
 * `@kubekit/generic-controlplane/testing`: a control plane for consumers' own tests, like
 * controller-runtime's envtest. It needs nothing beyond this package: use it from any test runner.
 * The storage conformance suite is `/testing/storage` (it imports `vitest` and `fast-check`).
 */
export { startTestPlane, type TestPlane, type TestResponse } from "../server/test-support.js";
