import { packageProject } from "../../vitest.shared.js";

export default packageProject(import.meta.dirname, { testTimeout: 60_000, hookTimeout: 60_000 });
