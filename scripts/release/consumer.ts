import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { execa, type Options, type Result } from "execa";
import type { PublishedVersions } from "./cut-release.ts";

/**
 * An empty project that installs the published packages with plain npm from the local
 * registry (only the `@talkide` scope comes from there; their dependencies come from the
 * default registry, as for any user), and runs everything on one chosen Node.
 */
export interface Consumer {
  readonly dir: string;
  readonly env: NodeJS.ProcessEnv;
  /** Runs a command in the consumer directory; never throws on a non-zero exit. */
  run(file: string, args: readonly string[], options?: Options): Promise<Result>;
  /** The text of a file installed under node_modules/<name>/. */
  installed(name: string, path: string): string;
}

export async function createConsumer(
  dir: string,
  registryUrl: string,
  nodeBinDir: string,
  versions: PublishedVersions,
): Promise<Consumer> {
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, "package.json"),
    `${JSON.stringify({ name: "release-test-consumer", private: true, type: "module" }, null, 2)}\n`,
  );
  writeFileSync(join(dir, ".npmrc"), `@talkide:registry=${registryUrl}\n`);
  const env = consumerEnv(dir, nodeBinDir);
  const run = (file: string, args: readonly string[], options: Options = {}) =>
    execa(file, args, {
      cwd: dir,
      env,
      extendEnv: false,
      reject: false,
      stdin: options.input === undefined ? "ignore" : "pipe",
      ...options,
    }) as unknown as Promise<Result>;
  const specs = [...versions].map(([name, version]) => `${name}@${version}`);
  const install = await run("npm", ["install", "--no-audit", "--no-fund", ...specs]);
  if (install.exitCode !== 0) {
    throw new Error(`npm install ${specs.join(" ")} failed:\n${String(install.stderr)}`);
  }
  return {
    dir,
    env,
    run,
    installed: (name, path) => readFileSync(join(dir, "node_modules", name, path), "utf8"),
  };
}

/**
 * The consumer's environment: the chosen Node first, then the consumer's own bins, then the
 * caller's PATH without any node_modules/.bin or project toolchain directory (so nothing of
 * the workspace can stand in for an installed bin), and no package-manager settings of the
 * caller (pnpm's npm_config_* variables would change how npm behaves).
 */
function consumerEnv(dir: string, nodeBinDir: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^(npm|pnpm)_/i.test(key) && key !== "NODE_OPTIONS") env[key] = value;
  }
  const inherited = (process.env["PATH"] ?? "")
    .split(delimiter)
    .filter((entry) => entry !== "" && !/node_modules|[\\/]\.tools[\\/]/.test(entry));
  env["PATH"] = [nodeBinDir, join(dir, "node_modules", ".bin"), ...inherited].join(delimiter);
  return env;
}
