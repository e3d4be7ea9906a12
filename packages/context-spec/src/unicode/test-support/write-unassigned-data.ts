// `pnpm --filter @talkide/context-spec run unicode:write`: rewrites the data file from the
// Unicode 13.0.0 database (needed only if the file's format changes: the data cannot).

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { PACKAGE_ROOT } from "../../cases/package-root.ts";
import { unassignedRangesFromUcd } from "./unassigned-source.ts";
import { UNASSIGNED_DATA_FILE, formatUnassignedData } from "../unicode-13-data.ts";

writeFileSync(
  join(PACKAGE_ROOT, UNASSIGNED_DATA_FILE),
  formatUnassignedData(unassignedRangesFromUcd()),
);
console.log(`wrote ${UNASSIGNED_DATA_FILE}`);
