import { packageProject } from "../../vitest.shared.js";

// Most tests drive a whole cluster (and often kubectl) through HTTP: on a loaded machine one can
// take several seconds, so the per-test limit is wider than vitest's 5 s.
export default packageProject(import.meta.dirname, { testTimeout: 30_000, hookTimeout: 30_000 });
