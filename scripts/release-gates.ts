// The release gates of `npm test` (see scripts/release/gates.ts): every change to a published
// package's src, spec or cases since its last release has a pending changeset, and any change
// of a case's expected bytes comes with a breaking bump of @talkide/context-spec.
import { checkReleaseGates } from "./release/gates.ts";
import { REPO_ROOT } from "./release/workspace.ts";

const { problems, notes } = await checkReleaseGates(REPO_ROOT);
for (const note of notes) process.stdout.write(`release gates: ${note}\n`);
for (const problem of problems) process.stderr.write(`release gates: FAIL ${problem}\n`);
process.exitCode = problems.length > 0 ? 1 : 0;
