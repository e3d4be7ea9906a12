import type { RosterMember } from "@talkide/privacy";

/** Only `parseRenderState` can produce a value of this brand. */
declare const validated: unique symbol;

/** The project part of a validated, normalized render state. */
export interface RenderProject {
  readonly id: number;
  /** Trimmed single line. */
  readonly name: string;
  /** Trimmed; `null` when absent, null or blank in the input. */
  readonly url: string | null;
  /** White space runs collapsed to one space, trimmed; `null` when absent or blank. */
  readonly description: string | null;
  /** Trimmed single lines; the default when absent in the input. Never the em-dash. */
  readonly backendLanguage: string;
  readonly backendFramework: string;
  readonly frontendLanguage: string;
  readonly frontendFramework: string;
}

/**
 * A roster member of a validated render state: exactly the privacy allowlist's fields.
 * `salutation` is trimmed; `teamBriefing` has `\n` line ends, no trailing white space on any
 * line, no blank first or last line, and is `null` when blank.
 */
export type RenderMember = RosterMember;

/**
 * A render state that passed `parseRenderState`: every string in NFC and normalized, the team
 * in roster order (createdAt as an exact instant, then id by code point). Rendering it
 * cannot fail.
 */
export interface RenderState {
  readonly project: RenderProject;
  readonly team: ReadonlyArray<RenderMember>;
  readonly activeMemberId: string;
  readonly [validated]: true;
}
