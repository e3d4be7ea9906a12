// The import-cycle check (`pnpm run cycles`, part of `pnpm run lint`): no module in the apps'
// or the packages' sources (production and tests) may import itself through others. Type-only
// imports count: a cycle of types is still two modules that cannot be read one after the other.
// Workspace packages resolve to their sources (the `@talkide/source` export condition), so a
// cycle that runs through two packages is found too.

/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    {
      name: "no-import-cycle",
      severity: "error",
      comment:
        "Modules that import each other, directly or through others. Move what both need into a module of its own that imports neither.",
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "(^|/)(dist|node_modules)/" },
    // Type-only imports and re-exports are dependencies too.
    tsPreCompilationDeps: true,
    enhancedResolveOptions: {
      conditionNames: ["@talkide/source", "import", "types", "default"],
      extensions: [".ts", ".vue", ".js", ".mjs", ".json"],
      exportsFields: ["exports"],
      mainFields: ["module", "main", "types"],
    },
  },
};
