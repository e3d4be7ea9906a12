// The render context of the standing prompt's template (spec/standing-prompt.md): the two
// names as given, and one list per optional capability, holding one element when the hub
// serves it and none when it does not, so the template's {{#each}} keeps or drops the text
// that tells the agent to use it. The interpreter does not judge invalid inputs here.

/** The optional capabilities a hub may serve, as spec/standing-prompt.md names them. */
const CAPABILITIES = ["reminders", "services"] as const;

export function readStandingInput(
  input: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const given = Array.isArray(input["capabilities"]) ? (input["capabilities"] as unknown[]) : [];
  const lists = Object.fromEntries(
    CAPABILITIES.map((name) => [name, given.includes(name) ? [{}] : []]),
  );
  return { brand: input["brand"], cli: input["cli"], ...lists };
}
