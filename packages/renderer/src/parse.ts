import { toLowerCaseDefault } from "@talkide/context-spec/unicode";
import { formatPath } from "@talkide/privacy";
import { compareCodePoints, compareInstants, parseInstant, type Instant } from "@talkide/text";
import {
  duplicateMember,
  emptyTeam,
  invalidField,
  unknownActiveMember,
  type RenderStateError,
} from "./errors.ts";
import {
  normalizeActiveMemberId,
  normalizeBriefing,
  normalizeDescription,
  normalizeId,
  normalizeName,
  normalizeProjectId,
  normalizeSalutation,
  normalizeTechField,
  normalizeTimestamp,
  normalizeUrl,
  type Normalized,
} from "./normalize.ts";
import { renderStateShape, structuralError, type ShapedRenderState } from "./shape.ts";
import type { RenderMember, RenderProject, RenderState } from "./state.ts";
import {
  DEFAULT_BACKEND_FRAMEWORK,
  DEFAULT_BACKEND_LANGUAGE,
  DEFAULT_FRONTEND_FRAMEWORK,
  DEFAULT_FRONTEND_LANGUAGE,
} from "./template.ts";

export type ParseRenderStateResult =
  | { readonly ok: true; readonly state: RenderState }
  | { readonly ok: false; readonly error: RenderStateError };

export const TEAM_MAX = 50;

/**
 * Validates and normalizes a render state (contract 1.2, 1.3). Reports one fault: the first
 * structural one (keys, required keys, JSON types; project, then team member by member, then
 * activeMemberId), else the team's size, else the first content fault in the same order, else
 * a duplicate (ids before salutations), else an active member that is not in the team. The
 * same input always gives the same error, whatever the order of its keys.
 */
export function parseRenderState(input: unknown): ParseRenderStateResult {
  const shaped = renderStateShape.safeParse(input);
  if (!shaped.success) return failure(structuralError(shaped.error.issues, input));
  const raw = shaped.data;

  if (raw.team.length === 0) return failure(emptyTeam("team"));
  if (raw.team.length > TEAM_MAX) return failure(invalidField("team", "too_many_members"));

  const project = normalizeProject(raw.project);
  if (!project.ok) return project;

  const members: MemberWithInstant[] = [];
  for (const [index, member] of raw.team.entries()) {
    const normalized = normalizeMember(member, index);
    if (!normalized.ok) return normalized;
    members.push(normalized.member);
  }

  const activeMemberId = normalizeActiveMemberId(raw.activeMemberId);
  if (!activeMemberId.ok) return refusal("activeMemberId", activeMemberId);

  const duplicate = findDuplicate(members);
  if (duplicate !== null) return failure(duplicateMember(duplicate));

  if (!members.some(({ member }) => member.id === activeMemberId.value)) {
    return failure(unknownActiveMember("activeMemberId"));
  }

  members.sort(rosterOrder);
  const state = {
    project: project.project,
    team: members.map(({ member }) => member),
    activeMemberId: activeMemberId.value,
  };
  return { ok: true, state: state as unknown as RenderState };
}

interface MemberWithInstant {
  readonly member: RenderMember;
  readonly instant: Instant;
  /** Lower-cased salutation: two members whose salutations differ only in case are one. */
  readonly salutationKey: string;
  readonly index: number;
}

type Failure = { readonly ok: false; readonly error: RenderStateError };

function normalizeProject(
  raw: ShapedRenderState["project"],
): { readonly ok: true; readonly project: RenderProject } | Failure {
  const id = normalizeProjectId(raw.id);
  if (!id.ok) return refusal("project.id", id);
  const name = normalizeName(raw.name);
  if (!name.ok) return refusal("project.name", name);
  const url = normalizeUrl(raw.url);
  if (!url.ok) return refusal("project.url", url);
  const description = normalizeDescription(raw.description);
  if (!description.ok) return refusal("project.description", description);
  const backendLanguage = normalizeTechField(raw.backendLanguage, DEFAULT_BACKEND_LANGUAGE);
  if (!backendLanguage.ok) return refusal("project.backendLanguage", backendLanguage);
  const backendFramework = normalizeTechField(raw.backendFramework, DEFAULT_BACKEND_FRAMEWORK);
  if (!backendFramework.ok) return refusal("project.backendFramework", backendFramework);
  const frontendLanguage = normalizeTechField(raw.frontendLanguage, DEFAULT_FRONTEND_LANGUAGE);
  if (!frontendLanguage.ok) return refusal("project.frontendLanguage", frontendLanguage);
  const frontendFramework = normalizeTechField(raw.frontendFramework, DEFAULT_FRONTEND_FRAMEWORK);
  if (!frontendFramework.ok) return refusal("project.frontendFramework", frontendFramework);
  return {
    ok: true,
    project: {
      id: id.value,
      name: name.value,
      url: url.value,
      description: description.value,
      backendLanguage: backendLanguage.value,
      backendFramework: backendFramework.value,
      frontendLanguage: frontendLanguage.value,
      frontendFramework: frontendFramework.value,
    },
  };
}

function normalizeMember(
  raw: ShapedRenderState["team"][number],
  index: number,
): { readonly ok: true; readonly member: MemberWithInstant } | Failure {
  const at = (field: string): string => formatPath(["team", index, field]);
  const id = normalizeId(raw.id);
  if (!id.ok) return refusal(at("id"), id);
  const createdAt = normalizeTimestamp(raw.createdAt);
  if (!createdAt.ok) return refusal(at("createdAt"), createdAt);
  // CLAUDE.md admits `t` and `z` as well (contract 1.2, v2).
  const instant = parseInstant(createdAt.value, { letters: "either-case" });
  if (instant === null) return failure(invalidField(at("createdAt"), "not_a_timestamp"));
  const salutation = normalizeSalutation(raw.salutation);
  if (!salutation.ok) return refusal(at("salutation"), salutation);
  const teamBriefing = normalizeBriefing(raw.teamBriefing);
  if (!teamBriefing.ok) return refusal(at("teamBriefing"), teamBriefing);
  // Built field by field: the member carries exactly the allowlisted keys, nothing copied.
  const member: RenderMember = {
    id: id.value,
    createdAt: createdAt.value,
    salutation: salutation.value,
    teamBriefing: teamBriefing.value,
  };
  // Unicode default lower-casing of the NFC value, as the spec says. toLowerCase is
  // locale-independent (toLocaleLowerCase would lower a Turkish "I" differently).
  const salutationKey = toLowerCaseDefault(salutation.value);
  return { ok: true, member: { member, instant, salutationKey, index } };
}

/** The later member of the first duplicate pair, in input order; ids before salutations. */
function findDuplicate(members: ReadonlyArray<MemberWithInstant>): string | null {
  const ids = new Set<string>();
  for (const { member, index } of members) {
    if (ids.has(member.id)) return formatPath(["team", index, "id"]);
    ids.add(member.id);
  }
  const salutations = new Set<string>();
  for (const { salutationKey, index } of members) {
    if (salutations.has(salutationKey)) return formatPath(["team", index, "salutation"]);
    salutations.add(salutationKey);
  }
  return null;
}

/** createdAt as an exact instant, earliest first; then id by code point. */
function rosterOrder(a: MemberWithInstant, b: MemberWithInstant): number {
  return compareInstants(a.instant, b.instant) || compareCodePoints(a.member.id, b.member.id);
}

function refusal(path: string, result: Normalized<unknown> & { ok: false }): Failure {
  return failure(invalidField(path, result.fault, result.limit));
}

function failure(error: RenderStateError): Failure {
  return { ok: false, error };
}
