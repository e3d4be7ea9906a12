import { createHash } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { copyCheckout } from "./checkout-copy.ts";
import { type Consumer, createConsumer } from "./consumer.ts";
import { cutRelease, type PublishedVersions, readCopyFile } from "./cut-release.ts";
import { startLocalRegistry, type LocalRegistry } from "./local-registry.ts";
import { ensureNodeBinDir, lowestAdmittedNode } from "./lowest-node.ts";
import { publishedPackages, REPO_ROOT } from "./workspace.ts";

// The release, end to end, the way users get it: a real registry (Verdaccio on loopback, its
// storage in a temporary directory), `changeset version` and `changeset publish` on a copy of
// this checkout, then an empty project that installs the tarballs with plain npm and uses
// every bin, every README snippet and the conformance runner — on the lowest Node the
// packages' `engines` admit and on the Node running this test. Slow by nature (minutes).

const MINUTE = 60_000;
const REGISTRY_LIFETIME_MS = 60 * MINUTE;
const SPEC = "@talkide/context-spec";

/** Which installed bin implements which suite (`talkide-conformance` has no other way to know). */
const IMPLEMENTATIONS: Readonly<Record<string, readonly string[]>> = {
  "claude-md": ["talkide-render"],
  "claude-md-split": ["talkide-render", "--layout", "split", "--file", "{output}"],
  "project-yml": ["talkide-ports", "render-yml"],
  "project-yml-parse": ["talkide-ports", "parse-yml"],
  "standing-prompt": ["talkide-prompts", "standing"],
  "wake-prompt": ["talkide-prompts", "wake"],
  "agent-file": ["talkide-prompts", "agent-file"],
};
/**
 * The runner offers every bin a session (runner protocol, session mode); these suites run per
 * case instead (`--per-case`), so the per-case protocol stays proved with installed bins too.
 */
const PER_CASE_SUITES: ReadonlySet<string> = new Set(["agent-file"]);

interface IndexedCase {
  readonly suite: string;
  readonly id: string;
  readonly input: string;
  readonly inputSha256: string;
  readonly outputs: readonly { readonly expected: string; readonly sha256: string }[];
  readonly expectedError: { readonly file: string; readonly sha256: string } | null;
}
interface TestCasesIndex {
  readonly specVersion: string;
  readonly cases: readonly IndexedCase[];
}

/** What beforeAll sets up; read through release() so a failed setup reads clearly. */
interface Release {
  readonly work: string;
  readonly registry: LocalRegistry;
  readonly copy: string;
  readonly versions: PublishedVersions;
}
let work: string | undefined;
let registry: LocalRegistry | undefined;
let cut: Release | undefined;

function release(): Release {
  if (cut === undefined) throw new Error("the release was not cut (see the beforeAll error)");
  return cut;
}

function need<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`missing: ${what}`);
  return value;
}

/**
 * pnpm's record of the scripts it ran (`pnpm run` writes it on its first run in a checkout).
 * Under `npm test` the other lanes (lint, compile) run pnpm scripts in this checkout while this
 * file runs, so it may appear between the two looks below; the release does not write it.
 */
const PNPM_RUN_STATE = /^\.pnpm-task-run-state-v\d+$/u;

/** Where each entry of the checkout's root node_modules points: the release must not move one. */
function rootModules(): Map<string, string> {
  const modules = join(REPO_ROOT, "node_modules");
  return new Map(
    readdirSync(modules, { withFileTypes: true })
      .filter((entry) => !PNPM_RUN_STATE.test(entry.name))
      .map((entry) => [
        entry.name,
        entry.isSymbolicLink()
          ? readlinkSync(join(modules, entry.name))
          : entry.isFile()
            ? "file"
            : "dir",
      ]),
  );
}
let modulesBefore: Map<string, string> | undefined;

const NODES = nodesUnderTest();
/**
 * Each Node's consumer project, installing while the tests of the cut run. Both installs (and
 * the download of the lowest Node, which starts before the cut) wait mostly on the network and
 * the disk, so they run side by side with the CPU-bound work instead of one after another.
 * Each describe block below awaits its own, so a failed install fails only that Node's tests.
 */
const consumers = new Map<string, Promise<Consumer>>();

beforeAll(async () => {
  modulesBefore = rootModules();
  const binDirs = new Map(NODES.map(([version, binDir]) => [version, binDir()]));
  // Read by the describe blocks; until then a failure must not count as unhandled.
  for (const dir of binDirs.values()) dir.catch(() => undefined);
  work = mkdtempSync(join(tmpdir(), "talkide-release-"));
  registry = await startLocalRegistry(join(work, "registry"), REGISTRY_LIFETIME_MS);
  const copy = join(work, "repo");
  await copyCheckout(REPO_ROOT, copy);
  cut = { work, registry, copy, versions: await cutRelease(copy, registry) };
  const { versions } = cut;
  const registryUrl = registry.url;
  const workDir = work;
  for (const [version, binDir] of binDirs) {
    const consumer = binDir.then((dir) =>
      createConsumer(join(workDir, `consumer-${version}`), registryUrl, dir, versions),
    );
    consumer.catch(() => undefined);
    consumers.set(version, consumer);
  }
}, 20 * MINUTE);

afterAll(async () => {
  await registry?.stop();
  // Two consumer projects with their node_modules: removing them takes a while on a busy disk.
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
}, 5 * MINUTE);

/** `npm view <spec> [field]` against the local registry, run with the caller's npm. */
async function npmView(spec: string, ...fields: string[]): Promise<string> {
  const { stdout } = await execa(
    "npm",
    ["view", spec, ...fields, "--registry", release().registry.url],
    { stdin: "ignore" },
  );
  return stdout.trim();
}

describe("changeset version and changeset publish on a copy of the checkout", () => {
  test("left the checkout's own node_modules as it was", () => {
    release();
    expect(rootModules()).toEqual(modulesBefore);
  });

  test("every published package got a new version, a CHANGELOG entry and no pending changeset", () => {
    const { copy, versions } = release();
    const before = new Map(
      publishedPackages().map(({ manifest }) => [manifest.name, manifest.version]),
    );
    expect([...versions.keys()].sort()).toEqual([...before.keys()].sort());
    for (const { dir, manifest } of publishedPackages(copy)) {
      expect(manifest.version, manifest.name).not.toBe(before.get(manifest.name));
      const changelog = readCopyFile(copy, `${dir}/CHANGELOG.md`);
      expect(changelog).toContain(`# ${manifest.name}`);
      expect(changelog).toContain(`## ${manifest.version}`);
      expect(changelog).toContain("Release test: proves the release flow end to end");
    }
    const left = readdirSync(join(copy, ".changeset")).filter(
      (name) => name.endsWith(".md") && name !== "README.md",
    );
    expect(left).toEqual([]);
  });

  test("the registry serves exactly those versions, with workspace ranges resolved", async () => {
    for (const [name, version] of release().versions) {
      const meta = JSON.parse(await npmView(`${name}@${version}`, "--json")) as {
        version: string;
        dependencies?: Record<string, string>;
      };
      expect(meta.version).toBe(version);
      for (const range of Object.values(meta.dependencies ?? {})) {
        expect(range).not.toMatch(/^(workspace|catalog):/);
      }
    }
  });

  test(`npm pack ${SPEC} gives a tarball whose files match the manifest hashes`, async () => {
    const { work, registry, versions } = release();
    const version = need(versions.get(SPEC), `${SPEC}'s version`);
    const dir = join(work, "pack");
    mkdirSync(dir);
    // What a JVM or Python project does (see packages/context-spec/README.md): fetch the
    // tarball of one version, check it against the registry's integrity, unpack, check hashes.
    const packed = await execa(
      "npm",
      ["pack", `${SPEC}@${version}`, "--json", "--registry", registry.url],
      { cwd: dir, stdin: "ignore" },
    );
    const [info] = JSON.parse(packed.stdout) as { filename: string; integrity: string }[];
    const { filename, integrity } = need(info, "npm pack's report");
    const tarball = readFileSync(join(dir, filename));
    const computed = `sha512-${createHash("sha512").update(tarball).digest("base64")}`;
    expect(computed).toBe(await npmView(`${SPEC}@${version}`, "dist.integrity"));
    expect(integrity).toBe(computed);

    await execa("tar", ["-xzf", filename], { cwd: dir, stdin: "ignore" });
    expectIndexMatchesFiles(join(dir, "package"));
  });

  test(`the Python recipe in ${SPEC}'s README fetches and verifies the cases`, async () => {
    const { work, registry, copy, versions } = release();
    const version = need(versions.get(SPEC), `${SPEC}'s version`);
    const dir = join(work, "python");
    mkdirSync(dir);
    const readme = readFileSync(join(copy, "packages", "context-spec", "README.md"), "utf8");
    const script = need(
      /^```python\n([\s\S]*?)^```$/m.exec(readme)?.[1],
      "the README's python block",
    );
    writeFileSync(join(dir, "fetch_cases.py"), script);
    const integrity = await npmView(`${SPEC}@${version}`, "dist.integrity");
    // As written, then as on a Python without tarfile's extraction filters (before 3.11.4, such
    // as Debian 12's 3.11.2), where the recipe checks the tarball's members itself.
    const withoutFilters = [
      "-c",
      "import runpy, sys, tarfile; vars(tarfile).pop('data_filter', None); " +
        "sys.argv = sys.argv[1:]; runpy.run_path(sys.argv[0], run_name='__main__')",
    ];
    for (const [prefix, dest] of [
      [[], "cases"],
      [withoutFilters, "cases-without-filters"],
    ] as const) {
      const python = await execa(
        "python3",
        [...prefix, "fetch_cases.py", registry.url, version, integrity, dest],
        { cwd: dir, stdin: "ignore", reject: false },
      );
      expect(python.exitCode, `python3 (Debian: apt-get install python3):\n${python.stderr}`).toBe(
        0,
      );
      expect(python.stdout).toMatch(/^\d+ cases of spec \d+\.\d+\.\d+ in /);
      expectIndexMatchesFiles(join(dir, dest, "package"));
    }
  });
});

describe.each(NODES)("installed with npm on Node %s", (nodeVersion) => {
  let installed: { consumer: Consumer; index: TestCasesIndex } | undefined;
  const setup = () => need(installed, "the consumer project (see the beforeAll error)");

  beforeAll(async () => {
    release();
    const consumer = await need(consumers.get(nodeVersion), `Node ${nodeVersion}'s consumer`);
    const reported = await consumer.run("node", ["-p", "process.versions.node"]);
    expect(reported.stdout).toBe(nodeVersion);
    const index = JSON.parse(consumer.installed(SPEC, "test-cases.json")) as TestCasesIndex;
    installed = { consumer, index };
  }, 10 * MINUTE);

  const firstValid = (suite: string): IndexedCase =>
    need(
      setup().index.cases.find((entry) => entry.suite === suite && entry.expectedError === null),
      `a valid ${suite} case`,
    );

  test(
    "talkide-conformance passes every suite with the installed implementations",
    async () => {
      const { consumer, index } = setup();
      const suites = [...new Set(index.cases.map((entry) => entry.suite))].sort();
      expect(suites, "a suite without an installed implementation").toEqual(
        Object.keys(IMPLEMENTATIONS).sort(),
      );
      for (const suite of suites) {
        const implementation = need(IMPLEMENTATIONS[suite], suite);
        const run = await consumer.run("talkide-conformance", [
          "--suite",
          suite,
          "--json",
          ...(PER_CASE_SUITES.has(suite) ? ["--per-case"] : []),
          "--",
          ...implementation,
        ]);
        const failed = String(run.stdout)
          .split("\n")
          .filter((line) => line.startsWith("{"))
          .map((line) => JSON.parse(line) as { id: string; ok: boolean; detail?: string })
          .filter((report) => !report.ok)
          .map((report) => `${suite}/${report.id}: ${report.detail ?? ""}`);
        expect(failed).toEqual([]);
        expect(run.exitCode, String(run.stderr)).toBe(0);
      }
    },
    20 * MINUTE,
  );

  test("talkide-spec check finds the installed cases, index and spec pages consistent", async () => {
    const run = await setup().consumer.run("talkide-spec", ["check"]);
    expect(run.exitCode, `${String(run.stdout)}\n${String(run.stderr)}`).toBe(0);
  });

  test(
    "talkide-spec-render (the reference interpreter) passes claude-md cases",
    async () => {
      // A few cases suffice: the interpreter's conformance is proved in the workspace's tests.
      // Per case, as a foreign runtime that speaks only the per-case protocol is driven.
      const run = await setup().consumer.run("talkide-conformance", [
        "--suite",
        "claude-md",
        "--include",
        "[a-c]*",
        "--per-case",
        "--",
        "talkide-spec-render",
        "--suite",
        "claude-md",
      ]);
      expect(run.exitCode, `${String(run.stdout)}\n${String(run.stderr)}`).toBe(0);
    },
    5 * MINUTE,
  );

  test("talkide-render renders a case's state to its expected bytes", async () => {
    const { consumer } = setup();
    const valid = firstValid("claude-md");
    const run = await consumer.run("talkide-render", [], {
      input: consumer.installed(SPEC, valid.input),
      stripFinalNewline: false,
    });
    expect(run.exitCode, String(run.stderr)).toBe(0);
    expect(run.stdout).toBe(consumer.installed(SPEC, need(valid.outputs[0], "an output").expected));
  });

  test("talkide-ports shows the ports of a project file it rendered", async () => {
    const { consumer } = setup();
    const rendered = await consumer.run("talkide-ports", ["render-yml"], {
      input: '{"projectId":7}',
      stripFinalNewline: false,
    });
    expect(rendered.exitCode, String(rendered.stderr)).toBe(0);
    const project = join(consumer.dir, "project-7");
    mkdirSync(join(project, ".talkide"), { recursive: true });
    writeFileSync(join(project, ".talkide", "project.yml"), String(rendered.stdout));
    const shown = await consumer.run("talkide-ports", ["show", "--json", "--project-dir", project]);
    expect(shown.exitCode, String(shown.stderr)).toBe(0);
    expect(JSON.parse(String(shown.stdout))).toMatchObject({ ports: { be: 8097, fe: 5207 } });
  });

  test("talkide-prompts writes the standing prompt", async () => {
    const run = await setup().consumer.run("talkide-prompts", ["standing"], {
      input: '{"brand":"Ticlawk","cli":"ticlawk"}',
    });
    expect(run.exitCode, String(run.stderr)).toBe(0);
    expect(String(run.stdout)).toContain("ticlawk");
  });

  test("talkide-mara-plugin writes the plugin with the agent file the spec pins", async () => {
    const { consumer } = setup();
    const plugin = join(consumer.dir, "mara-plugin");
    const run = await consumer.run("talkide-mara-plugin", [plugin]);
    expect(run.exitCode, String(run.stderr)).toBe(0);
    const agentFile = need(firstValid("agent-file").outputs[0], "an output").expected;
    expect(readFileSync(join(plugin, "agents", "talkide-pm.md"), "utf8")).toBe(
      consumer.installed(SPEC, agentFile),
    );
    expect(existsSync(join(plugin, ".claude-plugin", "plugin.json"))).toBe(true);
  });

  test.each(publishedPackages().map(({ manifest }) => manifest.name))(
    "the API snippets of %s's README run",
    async (name) => {
      const { consumer } = setup();
      const snippet = readmeSnippet(consumer.installed(name, "README.md"));
      expect(snippet, `${name}'s README has no ts code block`).not.toBe("");
      const file = join(consumer.dir, `snippet-${name.replace(/\W+/g, "-")}.mts`);
      writeFileSync(file, snippetPreamble(name, firstValid) + snippet);
      const run = await consumer.run("node", ["--experimental-strip-types", "--no-warnings", file]);
      expect(run.exitCode, `${file}:\n${String(run.stderr)}`).toBe(0);
    },
    5 * MINUTE,
  );
});

/** The Node versions under test, each with how to get its bin directory. */
function nodesUnderTest(): [string, () => Promise<string>][] {
  const lowest = lowestAdmittedNode(publishedPackages());
  const current = process.versions.node;
  const nodes: [string, () => Promise<string>][] = [
    [lowest, () => ensureNodeBinDir(join(REPO_ROOT, ".tools"), lowest)],
  ];
  if (current !== lowest) nodes.push([current, () => Promise.resolve(dirname(process.execPath))]);
  return nodes;
}

/** Every ```ts block of a README, in order, as one module. */
function readmeSnippet(readme: string): string {
  return [...readme.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((match) => match[1]).join("\n");
}

/**
 * Values the README snippets leave to the reader (`stateJson`, `body`), bound to real inputs
 * from the installed cases. Imports are hoisted, so the snippet's own imports still come first.
 */
function snippetPreamble(name: string, firstValid: (suite: string) => IndexedCase): string {
  const read = (suite: string) =>
    `(await import("node:fs")).readFileSync(${JSON.stringify(`node_modules/${SPEC}/${firstValid(suite).input}`)}, "utf8")`;
  switch (name) {
    case "@talkide/renderer":
      return `const stateJson = ${read("claude-md")};\n`;
    case "@talkide/prompts":
      return `const body = ${read("wake-prompt")};\n`;
    default:
      return "";
  }
}

/** Every file test-cases.json and manifest.json name has their sha256; no case file is unlisted. */
function expectIndexMatchesFiles(root: string): void {
  const sha256 = (path: string) =>
    createHash("sha256")
      .update(readFileSync(join(root, path)))
      .digest("hex");
  const index = JSON.parse(readFileSync(join(root, "test-cases.json"), "utf8")) as TestCasesIndex;
  const listed = new Set<string>();
  for (const entry of index.cases) {
    const files: [string, string][] = [[entry.input, entry.inputSha256]];
    for (const output of entry.outputs) files.push([output.expected, output.sha256]);
    if (entry.expectedError !== null) {
      files.push([entry.expectedError.file, entry.expectedError.sha256]);
    }
    for (const [path, hash] of files) {
      expect(sha256(path), path).toBe(hash);
      listed.add(path);
    }
  }
  const manifest = JSON.parse(readFileSync(join(root, "manifest.json"), "utf8")) as {
    specVersion: string;
    suites: Record<string, { cases: Record<string, Record<string, string>> }>;
  };
  expect(manifest.specVersion).toBe(index.specVersion);
  for (const [suite, { cases }] of Object.entries(manifest.suites)) {
    for (const [id, files] of Object.entries(cases)) {
      for (const [file, hash] of Object.entries(files)) {
        expect(sha256(`cases/${suite}/${id}/${file}`)).toBe(hash);
      }
    }
  }
  const unlisted = walk(join(root, "cases"))
    .map((path) => relative(root, path))
    .filter((path) => !path.endsWith("suite.json") && !path.endsWith("description.txt"))
    .filter((path) => !listed.has(path));
  expect(unlisted).toEqual([]);
}

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? walk(join(dir, entry.name)) : [join(dir, entry.name)],
  );
}
