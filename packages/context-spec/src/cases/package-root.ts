import * as path from "node:path";
import { fileURLToPath } from "node:url";

/** The package directory: src/cases/ and dist/cases/ both sit two levels below it. */
export const PACKAGE_ROOT = path.resolve(fileURLToPath(new URL("../..", import.meta.url)));
