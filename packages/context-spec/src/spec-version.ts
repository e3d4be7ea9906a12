/**
 * Version of the contract the cases pin. Major: a change of bytes or errors for an existing
 * case. Minor: new suites or cases. Patch: wording of the spec pages only.
 */
export const SPEC_VERSION = "4.1.0";
