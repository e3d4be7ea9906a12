import vue from "@vitejs/plugin-vue";
import { defineConfig } from "vite";

// The backend (apps/be) serves dist/ at `/`; during development `pnpm run dev` proxies the
// API to a backend started with `npm start`.
export default defineConfig({
  plugins: [vue()],
  base: "/",
  build: { outDir: "dist", emptyOutDir: true, sourcemap: false },
  server: {
    proxy: { "/v1": "http://127.0.0.1:9090", "/health": "http://127.0.0.1:9090" },
  },
});
