import { join } from "node:path";
import { describeBuiltPackage } from "../../../built-package.shared.js";

describeBuiltPackage(join(import.meta.dirname, ".."));
