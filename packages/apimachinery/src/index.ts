// Kubernetes' rules for values, each implemented once: every other package imports them from here.
export { VERSION } from "./version.js";
export { parseGoDuration } from "./go-duration.js";
