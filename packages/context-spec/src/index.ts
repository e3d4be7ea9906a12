export { SPEC_VERSION } from "./spec-version.ts";
export { PACKAGE_ROOT } from "./cases/package-root.ts";
export { loadCases, loadSuite, loadSuites, SpecDataError } from "./cases/load.ts";
export type { Expectation, ExpectedError, SpecCase, Suite } from "./cases/scan.ts";
export type { SuiteDefinition, SuiteOutput } from "./cases/suite.ts";
export {
  MANIFEST_FILE,
  TEST_CASES_FILE,
  type ManifestSuite,
  type TestCaseEntry,
} from "./cases/index-files.ts";
export {
  runConformance,
  DEFAULT_TIMEOUT_MS,
  type CaseResult,
  type ConformanceOptions,
  type ConformanceReport,
} from "./runner/runner.ts";
export type { CaseStatus, OutputResult } from "./runner/run-case.ts";
export { parseKnownFailures } from "./runner/known-failures.ts";
export { interpret, type InterpretRequest, type InterpretResult } from "./interpreter/interpret.ts";
export type { StateError, StateErrorCode } from "./interpreter/claude-md-state.ts";
export { TemplateError } from "./interpreter/template.ts";
