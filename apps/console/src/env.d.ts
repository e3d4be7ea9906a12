/// <reference types="vite/client" />

// For tools that read .ts files without Vue's language service (ESLint's type checker);
// vue-tsc resolves the real components.
declare module "*.vue" {
  import type { DefineComponent } from "vue";
  const component: DefineComponent;
  export default component;
}
