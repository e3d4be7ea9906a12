import { readFileSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import { ConfigError, parseEnvironment, type ConfigIssue } from "@talkide/service-kit";
import { z } from "zod";
import { limitSettingName, limitSettings, type LimitSettings } from "./limits.ts";
import { DEFAULT_PRICES, type ModelPrice, type PriceTable } from "./prices.ts";

/** The variable naming a JSON file of model prices laid over the built-in table. */
export const PRICES_FILE_SETTING = "TALKIDE_MODEL_PRICES_FILE";

const LIMIT_NAMES = (["user", "project"] as const).flatMap((scope) =>
  (["day", "month"] as const).flatMap((period) =>
    (["usd", "tokens"] as const).map((measure) => ({
      name: limitSettingName(scope, period, measure),
      measure,
    })),
  ),
);

const usdCap = z
  .string()
  .regex(/^(off|\d+(\.\d+)?)$/, "must be an amount in USD such as 20 or 7.50, or off")
  .transform((v) => (v === "off" ? null : Number(v)));
const tokenCap = z
  .string()
  .regex(/^(off|\d+)$/, "must be a whole number of tokens, or off")
  .transform((v) => (v === "off" ? null : Number(v)));

const envSchema = z.object({
  ...Object.fromEntries(
    LIMIT_NAMES.map(({ name, measure }) => [
      name,
      (measure === "usd" ? usdCap : tokenCap).optional(),
    ]),
  ),
  [PRICES_FILE_SETTING]: z.string().optional(),
});

const perMillion = z.number().nonnegative();
const priceSchema = z.strictObject({
  input: perMillion,
  output: perMillion,
  cacheWrite5m: perMillion,
  cacheWrite1h: perMillion,
  cacheRead: perMillion,
  webSearch: perMillion.optional(),
});
const pricesFileSchema = z.strictObject({
  /** Where the figures come from and when they were read: kept with the table. */
  source: z.string().min(1),
  models: z.record(z.string().min(1), priceSchema),
  fallback: priceSchema.optional(),
});

export interface GatewaySettings {
  readonly limits: LimitSettings;
  readonly prices: PriceTable;
}

/**
 * The gateway's settings from a service's environment: each limit
 * (`TALKIDE_LIMIT_{USER,PROJECT}_{DAY,MONTH}_{USD,TOKENS}`: an amount, or `off`) and the price
 * file (`TALKIDE_MODEL_PRICES_FILE`, relative to `cwd`): its models replace or add to the
 * built-in entries, its `fallback` the price of unknown models. Throws `ConfigError` naming
 * each bad variable (never its value); `readme` is where the service documents them.
 */
export function gatewaySettingsFromEnv(
  env: Readonly<Record<string, string | undefined>>,
  options: { readonly readme?: string; readonly cwd?: string } = {},
): GatewaySettings {
  const parsed = parseEnvironment(envSchema, env, options) as Record<
    string,
    number | null | string | undefined
  >;
  const caps: Record<string, number | null> = {};
  for (const { name } of LIMIT_NAMES) {
    const value = parsed[name];
    if (value !== undefined) caps[name] = value as number | null;
  }
  const file = parsed[PRICES_FILE_SETTING];
  return {
    limits: limitSettings(caps),
    prices:
      typeof file === "string"
        ? readPricesFile(absolute(file, options.cwd ?? process.cwd()), options.readme)
        : DEFAULT_PRICES,
  };
}

function absolute(path: string, cwd: string): string {
  return isAbsolute(path) ? path : resolve(cwd, path);
}

function readPricesFile(path: string, readme: string | undefined): PriceTable {
  const refuse = (message: string): never => {
    const issue: ConfigIssue = { variable: PRICES_FILE_SETTING, message };
    throw new ConfigError([issue], readme);
  };
  let text = "";
  try {
    text = readFileSync(path, "utf8");
  } catch {
    refuse("the file cannot be read");
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    refuse("the file is not JSON");
  }
  const result = pricesFileSchema.safeParse(json);
  if (!result.success) {
    const first = result.error.issues[0];
    return refuse(
      `the file does not match the price table's shape (${first?.path.join(".") ?? ""}: ${first?.message ?? "invalid"}); see the gateway's README`,
    );
  }
  const { source, models, fallback } = result.data;
  const own: Record<string, ModelPrice> = {};
  for (const [id, price] of Object.entries(models)) own[id.toLowerCase()] = price;
  return {
    source: `${source} (${PRICES_FILE_SETTING}), over ${DEFAULT_PRICES.source}`,
    models: { ...DEFAULT_PRICES.models, ...own },
    fallback: fallback ?? DEFAULT_PRICES.fallback,
  };
}
